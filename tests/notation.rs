//! Text formats: positions, moves, game records and the board, for every preset.

use awale::notation::{
    format_move, format_position, parse_move, parse_move_token, parse_position, render_board,
    result_text, GameRecord, RecordedMove,
};
use awale::{AwaleError, Game, Rules, State, Status};
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const SPECS: [&str; 11] = [
    "abapa",
    "awale",
    "wari",
    "openspiel",
    "oware2",
    "oware3",
    "oware4",
    "oware6",
    "abapa:max_plies=40",
    "wari:grand_slam=capture_all,cycle=ignore,max_plies=300",
    "abapa:houses=5,seeds=3",
];

fn rules(spec: &str) -> Rules {
    spec.parse().unwrap()
}

/// A random game of at most `max_moves` moves.
fn random_game(rules: Rules, seed: u64, max_moves: usize) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_seed(rules, seed);
    for _ in 0..max_moves {
        let legal = game.legal_moves();
        let Some(&m) = legal.choose(&mut rng) else {
            break;
        };
        game.apply(m).unwrap();
    }
    game
}

/// The parts position notation records.
fn parts(rules: &Rules, s: &State) -> (Vec<u8>, Vec<u8>, usize, u32) {
    (
        s.pits()[..rules.pits()].to_vec(),
        s.scores()[..rules.players as usize].to_vec(),
        s.to_move(),
        s.ply(),
    )
}

fn position_reason(text: &str) -> String {
    match parse_position(text) {
        Err(AwaleError::BadPosition { text: t, reason }) => {
            assert_eq!(t, text);
            reason
        }
        other => panic!("expected BadPosition for {text:?}, got {other:?}"),
    }
}

#[test]
fn start_positions_round_trip_for_every_preset() {
    for spec in SPECS {
        let r = rules(spec);
        let first = r.players as usize - 1;
        let start = State::initial(&r, first);
        let text = format_position(&r, &start);
        assert!(text.starts_with(&format!("{r} ")), "{text}");
        let (r2, s2) = parse_position(&text).unwrap();
        assert_eq!(r2, r);
        assert_eq!(s2, start, "{text}");
        assert_eq!(format_position(&r2, &s2), text);
    }
}

#[test]
fn the_start_shorthands() {
    let (r, s) = parse_position("abapa").unwrap();
    assert_eq!(s, State::initial(&r, 0));
    let (r, s) = parse_position("oware3 start 2").unwrap();
    assert_eq!(r.players, 3);
    assert_eq!(s.to_move(), 2);
    assert_eq!(
        format_position(&r, &s),
        "oware3 4,4,4,4/4,4,4,4/4,4,4,4 0,0,0 2"
    );
    let (_, s) = parse_position("  wari   start ").unwrap();
    assert_eq!(s.to_move(), 0);
    assert!(position_reason("oware3 start 3").contains("player to move 3 does not exist"));
    assert!(position_reason("abapa start 0 7").contains("unexpected '7'"));
}

#[test]
fn positions_of_random_games_round_trip() {
    for spec in SPECS {
        let r = rules(spec);
        for seed in 0..8 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut game = Game::with_seed(r, seed);
            loop {
                let text = format_position(&r, game.state());
                let (r2, s2) = parse_position(&text).unwrap();
                assert_eq!(r2, r);
                assert_eq!(parts(&r, &s2), parts(&r, game.state()), "{text}");
                assert_eq!(format_position(&r2, &s2), text);
                if game.status() == Status::Ongoing {
                    // A live position reads back with the same legal moves.
                    assert_eq!(s2.status(), Status::Ongoing, "{text}");
                    assert_eq!(s2.legal_mask(&r), game.legal_mask(), "{text}");
                }
                let legal = game.legal_moves();
                let Some(&m) = legal.choose(&mut rng) else {
                    break;
                };
                game.apply(m).unwrap();
            }
        }
    }
}

#[test]
fn position_format_examples() {
    let r = Rules::abapa();
    let mut s = State::initial(&r, 0);
    s.apply(&r, 2).unwrap();
    assert_eq!(
        format_position(&r, &s),
        "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0,0 1 1"
    );
    let (r, s) = parse_position("wari:max_plies=99 0,0,0,0,1,2/3,0,0,0,0,0 20,22 1 80").unwrap();
    assert_eq!(r.max_plies, 99);
    assert_eq!(s.ply(), 80);
    assert_eq!(s.to_move(), 1);
    assert_eq!(s.pits()[6], 3);
    assert_eq!(&s.scores()[..2], &[20, 22]);
}

#[test]
fn bad_positions_name_the_problem() {
    let cases: &[(&str, &str)] = &[
        ("", "empty"),
        ("   ", "empty"),
        (
            "abapaa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0",
            "unknown rules preset 'abapaa'",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0",
            "expected RULES ROWS STORES TO_MOVE",
        ),
        (
            "abapa 4,4,4,4,4,4 0,0 0",
            "1 row given but abapa has 2 players",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4/0,0,0,0,0,0 0,0 0",
            "3 rows given",
        ),
        (
            "abapa 4,4,4,4,4/4,4,4,4,4,4,4 0,0 0",
            "row 1 (player 0) has 5 houses but abapa has 6",
        ),
        (
            "oware3 4,4,4,4/4,4,4,4/4,4,4 0,0,4 0",
            "row 3 (player 2) has 3 houses",
        ),
        (
            "abapa 4,4,x,4,4,4/4,4,4,4,4,4 0,0 0",
            "row 1: 'x' is not a seed count",
        ),
        (
            "abapa 4,4,,4,4,4/4,4,4,4,4,4 0,0 0",
            "row 1: entry 3 is empty",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,-4 0,0 0",
            "row 2: '-4' is not a seed count",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,300 0,0 0",
            "'300' is not a seed count",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,5 0,0 0",
            "hold 49 seeds but these rules play with 48",
        ),
        ("abapa 0,0,0,0,0,0/4,4,4,4,4,4 0,0 0", "hold 24 seeds"),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0 0",
            "1 store given but the game has 2 players",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,a 0",
            "stores: 'a' is not a seed count",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 2",
            "player to move 2 does not exist in a 2-player game",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 south",
            "player to move 'south' is not a number",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0 -1",
            "ply count '-1' is not a whole number",
        ),
        (
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0 3 extra",
            "unexpected 'extra'",
        ),
    ];
    for (text, want) in cases {
        let reason = position_reason(text);
        assert!(reason.contains(want), "{text:?}: {reason:?} lacks {want:?}");
    }
}

#[test]
fn parsed_positions_get_their_status() {
    // North has reached 25: the game is over, whoever is to move.
    let (r, s) = parse_position("abapa 0,0,0,0,0,0/1,2,0,0,0,0 20,25 0 70").unwrap();
    assert_eq!(s.status(), Status::Ended(awale::EndReason::Threshold));
    assert!(result_text(&r, &s).starts_with("20-25 ended by threshold"));
    let (r, s) = parse_position("abapa:max_plies=10 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0 10").unwrap();
    assert_eq!(s.status(), Status::Truncated);
    assert_eq!(result_text(&r, &s), "0-0 truncated at the ply limit");
}

#[test]
fn every_move_round_trips_in_every_preset() {
    for spec in SPECS {
        let r = rules(spec);
        for p in 0..r.players as usize {
            for h in 0..r.houses as usize {
                let text = format_move(&r, p, h);
                assert_eq!(parse_move(&r, p, &text).unwrap(), h, "{spec} {text}");
                assert_eq!(
                    parse_move_token(&r, &text).unwrap(),
                    (p, h),
                    "{spec} {text}"
                );
            }
        }
    }
}

#[test]
fn move_notation_follows_the_letter_case() {
    let r = Rules::abapa();
    let south: Vec<String> = (0..6).map(|h| format_move(&r, 0, h)).collect();
    let north: Vec<String> = (0..6).map(|h| format_move(&r, 1, h)).collect();
    assert_eq!(south.join(""), "ABCDEF");
    assert_eq!(north.join(""), "abcdef");
    let o = Rules::oware(4).unwrap();
    assert_eq!(format_move(&o, 3, 2), "3C");
    assert_eq!(format_move(&o, 0, 0), "0A");
    // With 3+ players a bare letter (either case) is the mover's house.
    assert_eq!(parse_move(&o, 2, "b").unwrap(), 1);
    assert_eq!(parse_move(&o, 2, " 2b ").unwrap(), 1);
}

#[test]
fn bad_moves_name_the_problem() {
    let r = Rules::abapa();
    let o = Rules::oware(3).unwrap();
    let cases: &[(&Rules, usize, &str, &str)] = &[
        (&r, 0, "", "empty move"),
        (
            &r,
            0,
            "c",
            "a house of North but South is to move (playing A-F)",
        ),
        (
            &r,
            1,
            "C",
            "a house of South but North is to move (playing a-f)",
        ),
        (&r, 0, "G", "no house 'G': houses run A-F"),
        (&r, 1, "z", "no house 'z': houses run a-f"),
        (&r, 0, "AB", "expected a single house letter"),
        (&r, 0, "1A", "2-player moves are a single letter"),
        (&r, 0, "7", "'7' is not a house letter"),
        (&r, 0, "é", "'é' is not a house letter"),
        (
            &o,
            1,
            "2A",
            "a house of player 2 but player 1 is to move (playing 1A-1D)",
        ),
        (&o, 1, "5A", "player 5 does not exist in a 3-player game"),
        (&o, 1, "1E", "no house 'E': houses run 1A-1D"),
        (&o, 1, "E", "no house 'E': houses run A-D"),
        (&o, 1, "12A", "expected a player digit and a house letter"),
    ];
    for (rules, to_move, text, want) in cases {
        match parse_move(rules, *to_move, text) {
            Err(AwaleError::BadMoveNotation { text: t, reason }) => {
                assert_eq!(t, *text);
                assert!(reason.contains(want), "{text:?}: {reason:?} lacks {want:?}");
            }
            other => panic!("{text:?}: expected BadMoveNotation, got {other:?}"),
        }
    }
    let err = parse_move_token(&o, "A").unwrap_err();
    assert!(err.to_string().contains("names its player"));
}

#[test]
fn records_of_random_games_replay_to_the_same_final_position() {
    for spec in SPECS {
        let r = rules(spec);
        for seed in 0..6 {
            let game = random_game(r, seed, 2000);
            let record = GameRecord::from_game(&game);
            assert_eq!(record.moves.len(), game.moves().len());
            let text = record.to_string();
            assert!(text.contains(&format!("[Rules \"{r}\"]")), "{text}");
            assert!(text.contains(&format!(
                "[Final \"{}\"]",
                format_position(&r, game.state())
            )));
            let parsed: GameRecord = text.parse().unwrap();
            assert_eq!(parsed.to_string(), text);
            let replayed = parsed.replay().unwrap();
            assert_eq!(replayed.state(), game.state(), "{spec} seed {seed}");
            assert_eq!(replayed.moves(), game.moves());
            assert_eq!(replayed.status(), game.status());

            let json = serde_json::to_string(&record).unwrap();
            let back: GameRecord = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_string(), text);
            assert_eq!(back.replay().unwrap().state(), game.state());
        }
    }
}

#[test]
fn records_of_unfinished_games_and_from_positions() {
    let (r, start) = parse_position("abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0 80").unwrap();
    let mut game = Game::from_state(r, start);
    game.apply(5).unwrap(); // F: sows a, b
    let record = GameRecord::from_game(&game);
    assert_eq!(
        record.moves,
        vec![RecordedMove {
            player: 0,
            house: 5
        }]
    );
    let text = record.to_string();
    assert!(text.contains("[Start \"abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0 80\"]"));
    assert!(text.ends_with("\nF\n"), "{text}");
    let back: GameRecord = text.parse().unwrap();
    assert_eq!(back.replay().unwrap().state(), game.state());
}

#[test]
fn hand_written_records() {
    // No Start: the start position. Move numbers and comments are skipped; unknown tags kept.
    let text =
        "# a short game\n[Rules \"abapa\"]\n[Event \"club \\\"night\\\"\"]\n1. C f\n2. A c\n";
    let record: GameRecord = text.parse().unwrap();
    assert_eq!(record.tag("Event"), Some("club \"night\""));
    assert_eq!(record.move_texts(), vec!["C", "f", "A", "c"]);
    let game = record.replay().unwrap();
    assert_eq!(game.moves(), &[2, 5, 0, 2]);
    // The example of GameRecord's documentation.
    assert_eq!(
        format_position(game.rules(), game.state()),
        "abapa 1,6,2,7,6,6/5,4,0,5,5,1 0,0 0 4"
    );
    assert!(record
        .to_string()
        .contains("[Event \"club \\\"night\\\"\"]"));
    // Start alone gives the rules.
    let record: GameRecord = "[Start \"oware3 start 1\"]\n1A\n".parse().unwrap();
    assert_eq!(record.rules.players, 3);
    let game = record.replay().unwrap();
    assert_eq!(game.moves(), &[0]);
    assert_eq!(game.start().to_move(), 1);
}

#[test]
fn bad_records_name_the_problem() {
    let game = random_game(Rules::abapa(), 7, 30);
    let text = GameRecord::from_game(&game).to_string();
    let err = |t: &str| -> String {
        match t.parse::<GameRecord>().and_then(|r| r.replay()) {
            Err(AwaleError::BadRecord(m)) => m,
            other => panic!("expected BadRecord for {t:?}, got {other:?}"),
        }
    };
    assert!(err("C f A\n").contains("missing the [Rules"));
    assert!(err("[Rules \"abapa\"\nC\n").contains("line 1"));
    assert!(err("[Rules abapa]\nC\n").contains("double quotes"));
    assert!(err("[Rules \"abapa\"]\n[Rules \"wari\"]\n").contains("Rules tag is given twice"));
    assert!(err("[Rules \"chess\"]\n").contains("unknown rules preset 'chess'"));
    assert!(err("[Rules \"abapa\"]\nC f X\n").contains("move 3"));
    assert!(err("[Rules \"abapa\"]\nC C\n").contains("move 2 (C) is by South but North is to move"));
    assert!(err("[Rules \"wari\"]\n[Start \"abapa\"]\n").contains("played under 'abapa'"));
    assert!(err("[Rules \"abapa\"]\n[Start \"abapa 1,1 0,0 0\"]\n").contains("start: bad position"));
    // An illegal move: South's emptied house.
    assert!(err("[Rules \"abapa\"]\nC a C\n").contains("move 3 (C): illegal move"));
    // A changed final position or result is caught by the replay.
    let final_line = text.lines().find(|l| l.starts_with("[Final")).unwrap();
    let (r, s) = parse_position(
        final_line
            .trim_start_matches("[Final \"")
            .trim_end_matches("\"]"),
    )
    .unwrap();
    assert!(!game.is_over());
    let mut other = s;
    other.apply(&r, other.legal_moves(&r)[0]).unwrap();
    let moved = text.replace(
        final_line,
        &format!("[Final \"{}\"]", format_position(&r, &other)),
    );
    assert!(err(&moved).contains("not the recorded"));
    let result_line = text.lines().find(|l| l.starts_with("[Result")).unwrap();
    let wrong = text.replace(result_line, "[Result \"48-0 ended by threshold\"]");
    assert!(err(&wrong).contains("the moves give the result"));
    // Dropping the last move changes the final position.
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().unwrap();
    let shorter = last.rsplit_once(' ').map(|(a, _)| a).unwrap_or("");
    lines.push(shorter);
    assert!(err(&lines.join("\n")).contains("not the recorded"));
    // A move after the end.
    let ended = random_game(Rules::abapa(), 1, 5000);
    assert!(ended.is_over());
    let mut t = GameRecord::from_game(&ended);
    t.final_position = None;
    t.result = None;
    let extra = t.moves[t.moves.len() - 2];
    t.moves.push(extra);
    assert!(err(&t.to_string()).contains("already over"));
}

#[test]
fn the_two_player_board() {
    let (r, s) = parse_position("abapa 1,0,12,3,4,5/6,7,8,0,0,2 0,0 1 9").unwrap();
    let board = render_board(&r, &s);
    let lines: Vec<&str> = board.lines().collect();
    assert_eq!(lines[0], "abapa  ply 9  North (a-f) to move");
    assert_eq!(lines[1], "         f    e    d    c    b    a");
    assert_eq!(lines[2], "      +----+----+----+----+----+----+");
    assert_eq!(
        lines[3],
        "North |  2 |  0 |  0 |  8 |  7 |  6 |  store  0  <- to move"
    );
    assert_eq!(lines[4], "South |  1 |  0 | 12 |  3 |  4 |  5 |  store  0");
    assert_eq!(lines[5], lines[2]);
    assert_eq!(lines[6], "         A    B    C    D    E    F");
    assert_eq!(lines.len(), 7);
}

#[test]
fn boards_of_ended_games_and_multi_player_games() {
    let (r, s) = parse_position("abapa 0,0,0,0,0,0/1,0,0,0,0,0 26,21 0 60").unwrap();
    let board = render_board(&r, &s);
    assert!(
        board.starts_with("abapa  ply 60  game over, ended by threshold: South wins\n"),
        "{board}"
    );
    assert!(board.contains("South |  0 |  0 |  0 |  0 |  0 |  0 |  store 26\n"));
    assert!(!board.contains("to move"));

    let (r, s) = parse_position("oware3 1,2,3,4/5,6,7,8/0,0,0,0 10,2,0 1 31").unwrap();
    let board = render_board(&r, &s);
    let lines: Vec<&str> = board.lines().collect();
    assert_eq!(lines[0], "oware3  ply 31  player 1 (1A-1D) to move");
    assert_eq!(lines[1], "            A    B    C    D");
    assert_eq!(lines[3], "player 0 |  1 |  2 |  3 |  4 |  store 10");
    assert_eq!(
        lines[4],
        "player 1 |  5 |  6 |  7 |  8 |  store  2  <- to move"
    );
    assert_eq!(lines[5], "player 2 |  0 |  0 |  0 |  0 |  store  0");

    // Every preset's board shows each pit count and each store.
    for spec in SPECS {
        let r = rules(spec);
        let game = random_game(r, 3, 25);
        let board = render_board(&r, game.state());
        let lines = if r.players == 2 {
            7
        } else {
            4 + r.players as usize
        };
        assert_eq!(board.lines().count(), lines, "{board}");
        for p in 0..r.players as usize {
            assert!(board.contains(&format!("store {:>2}", game.state().scores()[p])));
        }
        let cells: usize = board.matches(" |").count();
        assert_eq!(cells, r.pits() + r.players as usize, "{board}");
    }
}

#[test]
fn wide_counts_widen_the_columns() {
    let r: Rules = "abapa:seeds=20,win=none".parse().unwrap();
    let (_, s) =
        parse_position("abapa:seeds=20,win=none 0,0,0,0,0,140/0,0,0,0,0,0 100,0 0").unwrap();
    let board = render_board(&r, &s);
    assert!(
        board.contains("South |   0 |   0 |   0 |   0 |   0 | 140 |  store 100"),
        "{board}"
    );
}
