//! What people read of a position: the result in words and the ASCII board.

use super::moves::{format_move, house_range, player_name};
use crate::rules::Rules;
use crate::state::{State, Status};

/// The outcome of a position as text: the stores joined by `-`, then the status, e.g.
/// `25-19 ended by threshold`, `0-0 ongoing` or `0-0-0 truncated at the ply limit`. Game records
/// write it in their `Result` tag.
///
/// ```
/// use awale::notation::result_text;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// assert_eq!(result_text(&rules, &State::initial(&rules, 0)), "0-0 ongoing");
/// ```
pub fn result_text(rules: &Rules, state: &State) -> String {
    let scores: Vec<String> = state.scores()[..rules.players as usize]
        .iter()
        .map(|s| s.to_string())
        .collect();
    format!("{} {}", scores.join("-"), state.status())
}

/// Draws a position as an ASCII board.
///
/// With 2 players North's row is on top, right to left (`f e d c b a`), South's at the bottom,
/// left to right (`A B C D E F`), so the seeds travel counter-clockwise; each row's store is at
/// its right and an arrow marks the player to move. With more players each player has a line,
/// in sowing order. The first line names the rules, the ply and the status.
///
/// ```
/// use awale::notation::render_board;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// let board = render_board(&rules, &State::initial(&rules, 0));
/// assert!(board.contains(" f    e    d    c    b    a"));
/// assert!(board.contains("|  4 |  4 |  4 |  4 |  4 |  4 |"));
/// assert!(board.contains("South (A-F) to move"));
/// ```
pub fn render_board(rules: &Rules, state: &State) -> String {
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let pits = &state.pits()[..rules.pits()];
    let scores = &state.scores()[..players];
    let width = pits
        .iter()
        .chain(scores)
        .map(|x| x.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    let name_width = (0..players)
        .map(|p| player_name(rules, p).len())
        .max()
        .unwrap_or(0);
    let indent = " ".repeat(name_width + 1);
    let cell = |x: u8| format!(" {x:>width$} |");
    let rule = format!(
        "{indent}+{}",
        format!("{}+", "-".repeat(width + 2)).repeat(houses)
    );

    let mut out = String::new();
    let status = match state.status() {
        Status::Ongoing => format!(
            "{} ({}) to move",
            player_name(rules, state.to_move()),
            house_range(rules, state.to_move())
        ),
        st => {
            let winners = state.winners(rules);
            let outcome = match winners.len() {
                0 => String::new(),
                1 => format!(": {} wins", player_name(rules, winners[0])),
                n if n == players => ": draw".to_string(),
                _ => {
                    let names: Vec<String> =
                        winners.iter().map(|&p| player_name(rules, p)).collect();
                    format!(": {} share the win", names.join(" and "))
                }
            };
            format!("game over, {st}{outcome}")
        }
    };
    out.push_str(&format!("{rules}  ply {}  {status}\n", state.ply()));
    let row_line = |p: usize, order: &[usize]| {
        let cells: String = order.iter().map(|&h| cell(pits[p * houses + h])).collect();
        let arrow = if !state.is_over() && state.to_move() == p {
            "  <- to move"
        } else {
            ""
        };
        format!(
            "{:<name_width$} |{cells}  store {:>width$}{arrow}\n",
            player_name(rules, p),
            scores[p]
        )
    };
    let labels = |p: usize, order: &[usize]| -> String {
        let ls: String = order
            .iter()
            .map(|&h| {
                let m = format_move(rules, p, h);
                // In multi-player games the row already names the player: show the letter only.
                let letter = m.chars().last().unwrap_or(' ');
                format!("{letter:>w$}  ", w = width + 1)
            })
            .collect();
        format!("{indent} {}\n", ls.trim_end())
    };
    let fwd: Vec<usize> = (0..houses).collect();
    let rev: Vec<usize> = fwd.iter().rev().copied().collect();
    if players == 2 {
        out.push_str(&labels(1, &rev));
        out.push_str(&rule);
        out.push('\n');
        out.push_str(&row_line(1, &rev));
        out.push_str(&row_line(0, &fwd));
        out.push_str(&rule);
        out.push('\n');
        out.push_str(&labels(0, &fwd));
    } else {
        out.push_str(&labels(0, &fwd));
        out.push_str(&rule);
        out.push('\n');
        for p in 0..players {
            out.push_str(&row_line(p, &fwd));
        }
        out.push_str(&rule);
        out.push('\n');
    }
    out
}
