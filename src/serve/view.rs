//! A game as the JSON the page draws.

use serde_json::{json, Value};

use awale::notation::{format_move, format_position, player_name, result_text};

use super::session::{AppState, Seat, Session};

/// The game as JSON: everything the page draws (`error`, the last agent failure, only when there
/// is one).
pub(super) fn view(app: &AppState, id: &str, s: &Session) -> Value {
    let game = &s.game;
    let rules = *game.rules();
    let state = game.state();
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let mut labels = Vec::with_capacity(game.moves().len());
    let mut st = *game.start();
    for &m in game.moves() {
        labels.push(format_move(&rules, st.to_move(), m as usize));
        st.apply_unchecked(&rules, m as usize);
    }
    let mover = state.to_move();
    let legal = if game.is_over() {
        Vec::new()
    } else {
        game.legal_moves()
    };
    let table = app
        .open_table_for(&rules)
        .filter(|t| state.board_seeds(&rules) as usize <= t.max_seeds());
    let table_view = table.and_then(|t| t.probe(state).ok()).map(|p| {
        json!({
            "seeds": p.seeds,
            "value": p.value,
            "cycle": p.cycle,
            "best": p.best_moves(),
            "moves": p.moves.iter().map(|m| json!({"house": m.house, "value": m.value})).collect::<Vec<_>>(),
        })
    });
    let mut view = json!({
        "id": id,
        "rules": rules.to_string(),
        "players": players,
        "houses": houses,
        "pits": &state.pits()[..players * houses],
        "stores": &state.scores()[..players],
        "to_move": mover,
        "names": (0..players).map(|p| player_name(&rules, p)).collect::<Vec<_>>(),
        "house_labels": (0..players).map(|p| (0..houses).map(|h| format_move(&rules, p, h)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "legal": legal,
        "over": game.is_over(),
        "result": result_text(&rules, state),
        "winners": if game.is_over() { state.winners(&rules) } else { Vec::new() },
        "moves": labels,
        "position": format_position(&rules, state),
        "seats": s.seats.iter().map(|seat| match seat {
            Seat::Person => json!({"person": true, "name": "person"}),
            Seat::Agent { spec, .. } => json!({"person": false, "name": spec}),
        }).collect::<Vec<_>>(),
        "person_to_move": !game.is_over() && matches!(s.seats[mover], Seat::Person),
        "thinking": s.thinking,
        "last": s.last,
        "table": table_view,
    });
    // The last agent failure, only when there is one: a view without a failure (every
    // successful answer, `POST /api/games` the first) carries no `error` key, which error
    // answers alone have.
    if let Some(e) = &s.error {
        view["error"] = json!(e);
    }
    view
}
