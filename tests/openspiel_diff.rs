//! Differential test against OpenSpiel's `oware`.
//!
//! `tests/openspiel/trace.py` plays random games with OpenSpiel and streams every state it
//! reaches; this test replays the same moves with our [`Game`] under [`Rules::openspiel`] and
//! compares, at every ply (the initial state included): the legal moves, the board, the scores,
//! whether the game is over, the player to move and, at the end, the returns. A sample of the
//! games is also replayed under [`Rules::abapa`], which must agree with OpenSpiel at every ply
//! but the last, and at the last must differ exactly by the documented sweep (OpenSpiel gives the
//! seeds left on the board to their row's owner at every end; abapa leaves them on the board
//! when a player reaches 25). One more documented difference: OpenSpiel ends every repeated
//! position, abapa only those where each player has a seed on his side (`000`); where a row is
//! empty, abapa must be still playing, with the board OpenSpiel swept.
//!
//! Environment:
//! - `AWALE_OPENSPIEL_PYTHON`: a Python with `pyspiel` (`pip install open-spiel`). When unset the
//!   test says it was skipped and passes.
//! - `AWALE_OPENSPIEL_GAMES`: games to play (default 100000).
//! - `AWALE_OPENSPIEL_SEED`: seed of the random moves (default 1).
//! - `AWALE_OPENSPIEL_JOBS`: worker processes for the script (default: all cores).

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use awale::{EndReason, Game, Rules, Status};

/// OpenSpiel's oware: 2 players x 6 houses, 48 seeds.
const HOUSES: usize = 6;
const PITS: usize = 12;
const TOTAL: f32 = 48.0;
const MAGIC: &[u8; 8] = b"OWTRACE1";
const FLAG_TERMINAL: u8 = 1;
const FLAG_PLAYER1: u8 = 2;
const FLAG_CAPPED: u8 = 4;
/// Every `ABAPA_SAMPLE`-th game is also replayed under `abapa`.
const ABAPA_SAMPLE: u32 = 4;

/// One state of OpenSpiel's trace, after a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OsState {
    pits: [u8; PITS],
    scores: [u8; 2],
    terminal: bool,
    /// OpenSpiel's game-length cap (1000 plies) stopped the game here.
    capped: bool,
    /// Player to move (meaningful only when not terminal).
    to_move: usize,
    legal: u16,
}

/// Reads the binary trace written by `tests/openspiel/trace.py`.
struct Trace<R: Read> {
    inner: R,
}

impl<R: Read> Trace<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut buf = [0u8; N];
        self.inner
            .read_exact(&mut buf)
            .map_err(|e| format!("trace ended early or could not be read: {e}"))?;
        Ok(buf)
    }

    fn header(&mut self) -> Result<(u32, u64), String> {
        let magic: [u8; 8] = self.bytes()?;
        if &magic != MAGIC {
            return Err(format!("bad trace magic {magic:?}"));
        }
        let games = u32::from_le_bytes(self.bytes()?);
        let seed = u64::from_le_bytes(self.bytes()?);
        Ok((games, seed))
    }

    /// A game's header: its index and the legal mask of the initial state.
    fn game_header(&mut self) -> Result<(u32, u16), String> {
        let index = u32::from_le_bytes(self.bytes()?);
        let [mask] = self.bytes()?;
        Ok((index, mask as u16))
    }

    /// One ply: the action played and the state OpenSpiel reached.
    fn ply(&mut self) -> Result<(usize, OsState), String> {
        let [action] = self.bytes()?;
        let mut values = [0u8; PITS + 2];
        for v in values.iter_mut() {
            let x = f32::from_le_bytes(self.bytes()?) * TOTAL;
            let n = x.round();
            if (x - n).abs() > 1e-3 || !(0.0..=TOTAL).contains(&n) {
                return Err(format!("observation value {x}/48 is not a seed count"));
            }
            *v = n as u8;
        }
        let [flags, legal] = self.bytes()?;
        let mut pits = [0u8; PITS];
        pits.copy_from_slice(&values[..PITS]);
        Ok((
            action as usize,
            OsState {
                pits,
                scores: [values[PITS], values[PITS + 1]],
                terminal: flags & FLAG_TERMINAL != 0,
                capped: flags & FLAG_CAPPED != 0,
                to_move: usize::from(flags & FLAG_PLAYER1 != 0),
                legal: legal as u16,
            },
        ))
    }

    fn returns(&mut self) -> Result<[i8; 2], String> {
        let [a, b] = self.bytes()?;
        Ok([a as i8, b as i8])
    }
}

/// Our view of a game, in OpenSpiel's terms.
fn ours(game: &Game) -> OsState {
    let s = game.state();
    let mut pits = [0u8; PITS];
    pits.copy_from_slice(&s.pits()[..PITS]);
    OsState {
        pits,
        scores: [s.scores()[0], s.scores()[1]],
        terminal: matches!(game.status(), Status::Ended(_)),
        capped: false,
        to_move: game.to_move(),
        legal: game.legal_mask(),
    }
}

/// True when two states agree on everything OpenSpiel exposes (the player to move only
/// matters while the game goes on).
fn same(a: &OsState, b: &OsState) -> bool {
    a.pits == b.pits
        && a.scores == b.scores
        && a.terminal == b.terminal
        && a.legal == b.legal
        && (a.terminal || a.to_move == b.to_move)
}

fn show(s: &OsState) -> String {
    let legal: String = (0..HOUSES)
        .filter(|h| s.legal & (1 << h) != 0)
        .map(|h| char::from(b'0' + h as u8))
        .collect();
    format!(
        "south {:?} north {:?} scores {:?} {} legal [{}]",
        &s.pits[..HOUSES],
        &s.pits[HOUSES..],
        s.scores,
        if s.terminal {
            "terminal".to_string()
        } else {
            format!("player {} to move", s.to_move)
        },
        legal
    )
}

/// The moves so far in OpenSpiel's notation (`A`-`F` for player 0, `a`-`f` for player 1).
fn moves_text(moves: &[(usize, usize)]) -> String {
    moves
        .iter()
        .map(|&(player, house)| char::from(if player == 0 { b'A' } else { b'a' } + house as u8))
        .map(String::from)
        .collect::<Vec<_>>()
        .join(" ")
}

struct Mismatch {
    index: u32,
    ply: usize,
    what: String,
    moves: Vec<(usize, usize)>,
    openspiel: String,
    ours: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {} ply {}: {}\n  moves: {}\n  openspiel: {}\n  ours:      {}",
            self.index,
            self.ply,
            self.what,
            moves_text(&self.moves),
            self.openspiel,
            self.ours
        )
    }
}

#[derive(Default)]
struct Totals {
    games: u64,
    plies: u64,
    capped: u64,
    ends: BTreeMap<&'static str, u64>,
    abapa_games: u64,
    abapa_plies: u64,
    /// Sampled games whose abapa end left seeds on the board (threshold ends).
    abapa_left_seeds: u64,
    /// Sampled games that OpenSpiel ended by a repetition with an empty row, where abapa plays on.
    abapa_played_on: u64,
}

/// Replays one traced game and compares it ply by ply.
fn check_game<R: Read>(trace: &mut Trace<R>, totals: &mut Totals) -> Result<(), String> {
    let (index, initial_legal) = trace.game_header()?;
    let mut game = Game::new(Rules::openspiel());
    let mut abapa = (index % ABAPA_SAMPLE == 0).then(|| Game::new(Rules::abapa()));
    let mut moves: Vec<(usize, usize)> = Vec::new();
    let fail = |ply: usize, what: String, moves: &[(usize, usize)], os: String, us: String| {
        Err(Mismatch {
            index,
            ply,
            what,
            moves: moves.to_vec(),
            openspiel: os,
            ours: us,
        }
        .to_string())
    };
    let start = ours(&game);
    if start.legal != initial_legal || start.to_move != 0 || start.pits != [4; PITS] {
        return fail(
            0,
            "initial state differs".into(),
            &moves,
            format!("legal mask {initial_legal:#08b}"),
            show(&start),
        );
    }
    loop {
        let (action, os) = trace.ply()?;
        let ply = moves.len() + 1;
        moves.push((game.to_move(), action));
        if let Err(e) = game.apply(action) {
            return fail(
                ply,
                format!("our engine refuses OpenSpiel's move: {e}"),
                &moves,
                show(&os),
                show(&ours(&game)),
            );
        }
        let us = ours(&game);
        if os.capped {
            // OpenSpiel will not play past 1000 plies; our game has no such cap.
            if !same(&us, &os) || us.terminal {
                return fail(
                    ply,
                    "state differs at OpenSpiel's length cap".into(),
                    &moves,
                    show(&os),
                    show(&us),
                );
            }
            trace.returns()?;
            totals.capped += 1;
            break;
        }
        if !same(&us, &os) {
            return fail(ply, "state differs".into(), &moves, show(&os), show(&us));
        }
        if let Some(ab) = abapa.as_mut() {
            ab.apply(action)
                .map_err(|e| format!("game {index} ply {ply}: abapa refuses the move: {e}"))?;
            let a = ours(ab);
            if !os.terminal && !same(&a, &os) {
                return fail(
                    ply,
                    "abapa differs from OpenSpiel before the end".into(),
                    &moves,
                    show(&os),
                    show(&a),
                );
            }
            if os.terminal {
                // The documented difference: OpenSpiel sweeps every seed left on the board to its
                // row's owner at every end; abapa ends at the same ply, leaves them on the board
                // only at a 25-seed win, and otherwise ends with an empty board already.
                let st = ab.state();
                let rules = ab.rules();
                let swept = [
                    st.scores()[0] as u32 + st.row_seeds(rules, 0),
                    st.scores()[1] as u32 + st.row_seeds(rules, 1),
                ];
                let left = st.board_seeds(rules);
                // abapa's cycle rule needs a seed on each side (`cycle_if_seeded`): a repeated
                // position with an empty row, which OpenSpiel ends, is played on.
                let played_on = ab.status() == Status::Ongoing
                    && !st.repetition_ends(rules)
                    && os.pits == [0; PITS]
                    && swept == [os.scores[0] as u32, os.scores[1] as u32];
                totals.abapa_played_on += u64::from(played_on);
                let ok = played_on
                    || (a.terminal
                        && os.pits == [0; PITS]
                        && swept == [os.scores[0] as u32, os.scores[1] as u32]
                        && (left == 0 || ab.status() == Status::Ended(EndReason::Threshold))
                        && (left > 0 || same(&a, &os))
                        && ab.returns()[..2] == game.returns()[..2]);
                if !ok {
                    return fail(
                        ply,
                        format!(
                            "abapa's end is not OpenSpiel's end minus the sweep ({})",
                            ab.status()
                        ),
                        &moves,
                        show(&os),
                        show(&a),
                    );
                }
                totals.abapa_left_seeds += u64::from(left > 0);
            }
            totals.abapa_plies += 1;
        }
        if os.terminal {
            let returns = trace.returns()?;
            let r = game.returns();
            if [r[0], r[1]] != [returns[0] as f32, returns[1] as f32] {
                return fail(
                    ply,
                    format!("returns differ: openspiel {returns:?}, ours {:?}", &r[..2]),
                    &moves,
                    show(&os),
                    show(&us),
                );
            }
            if let Status::Ended(reason) = game.status() {
                *totals.ends.entry(reason.name()).or_default() += 1;
            }
            break;
        }
    }
    totals.games += 1;
    totals.plies += moves.len() as u64;
    totals.abapa_games += u64::from(abapa.is_some());
    Ok(())
}

/// Writes straight to stderr, past the test harness's output capture, so the line shows in a
/// plain `cargo test`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")),
        Err(_) => default,
    }
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn openspiel_oware_agrees_ply_by_ply() {
    let Ok(python) = std::env::var("AWALE_OPENSPIEL_PYTHON") else {
        say(
            "openspiel_diff: SKIPPED (differential test against OpenSpiel's oware not run). \
             To run it, set AWALE_OPENSPIEL_PYTHON to a python that has pyspiel \
             (pip install open-spiel), e.g. AWALE_OPENSPIEL_PYTHON=.venv/bin/python cargo test \
             --release --test openspiel_diff; AWALE_OPENSPIEL_GAMES (default 100000) and \
             AWALE_OPENSPIEL_SEED (default 1) choose the games.",
        );
        return;
    };
    let games = env_number("AWALE_OPENSPIEL_GAMES", 100_000);
    let seed = env_number("AWALE_OPENSPIEL_SEED", 1);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/openspiel/trace.py");
    let started = Instant::now();
    let mut cmd = Command::new(&python);
    cmd.arg(script)
        .args(["--games", &games.to_string(), "--seed", &seed.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Ok(jobs) = std::env::var("AWALE_OPENSPIEL_JOBS") {
        cmd.args(["--jobs", &jobs]);
    }
    let mut child = KillOnDrop(
        cmd.spawn()
            .unwrap_or_else(|e| panic!("cannot run {python} {script}: {e}")),
    );
    let mut stderr = child.0.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let stdout = child.0.stdout.take().expect("piped stdout");
    let mut trace = Trace {
        inner: BufReader::with_capacity(1 << 20, stdout),
    };
    let mut totals = Totals::default();
    let outcome = trace.header().and_then(|(n, s)| {
        if (n as u64, s) != (games, seed) {
            return Err(format!(
                "trace is for {n} games, seed {s}; asked {games}, {seed}"
            ));
        }
        (0..n).try_for_each(|_| check_game(&mut trace, &mut totals))
    });
    if let Err(e) = outcome {
        drop(trace);
        drop(child);
        let stderr = errors.join().unwrap_or_default();
        // A mismatch ("game N ply P: ...") is ours to explain; the script's stderr then only
        // holds the noise of its workers being stopped. A broken trace is the script's problem.
        let script = if e.starts_with("game ") {
            String::new()
        } else {
            format!("\n(script stderr: {})", stderr.trim())
        };
        panic!(
            "OpenSpiel differential test failed after {} games:\n{e}{script}",
            totals.games
        );
    }
    let mut extra = [0u8; 1];
    assert_eq!(
        trace.inner.read(&mut extra).unwrap(),
        0,
        "the trace has data past its last game"
    );
    let status = child.0.wait().expect("wait for the trace script");
    let stderr = errors.join().unwrap_or_default();
    assert!(
        status.success(),
        "the trace script failed ({status}): {stderr}"
    );
    let secs = started.elapsed().as_secs_f64();
    say(&format!(
        "openspiel_diff: {} games, {} plies identical to OpenSpiel's oware under 'openspiel' \
         (seed {seed}; {} stopped by OpenSpiel's 1000-ply cap); ends: {:?}; abapa sample: {} \
         games, {} plies, identical but for the final sweep, which left seeds on the board in \
         {} threshold ends, and {} repetitions with an empty row that abapa plays on; \
         {secs:.1} s",
        totals.games,
        totals.plies,
        totals.capped,
        totals.ends,
        totals.abapa_games,
        totals.abapa_plies,
        totals.abapa_left_seeds,
        totals.abapa_played_on
    ));
    assert_eq!(totals.games, games);
    assert!(
        games < 100 || totals.abapa_left_seeds > 0,
        "expected some threshold ends to leave seeds on the board"
    );
}

/// Writes a trace in the script's format for random games played by our own engine under
/// `openspiel`, to test the reader and the comparison without Python.
fn synthetic_trace(games: u32, seed: u64) -> Vec<u8> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&games.to_le_bytes());
    out.extend_from_slice(&seed.to_le_bytes());
    for index in 0..games {
        let mut game = Game::new(Rules::openspiel());
        out.extend_from_slice(&index.to_le_bytes());
        out.push(game.legal_mask() as u8);
        while !game.is_over() {
            let moves = game.legal_moves();
            let action = moves[rng.random_range(0..moves.len())];
            game.apply(action).unwrap();
            let s = ours(&game);
            out.push(action as u8);
            for &n in s.pits.iter().chain(&s.scores) {
                // As OpenSpiel computes it: a double fraction of 48, handed over as f32.
                out.extend_from_slice(&((n as f64 / 48.0) as f32).to_le_bytes());
            }
            let flags = if s.terminal {
                FLAG_TERMINAL
            } else if s.to_move == 1 {
                FLAG_PLAYER1
            } else {
                0
            };
            out.push(flags);
            out.push(if s.terminal { 0 } else { s.legal as u8 });
        }
        let r = game.returns();
        out.extend_from_slice(&[r[0] as i8 as u8, r[1] as i8 as u8]);
    }
    out
}

/// Runs the comparison over an in-memory trace.
fn check_all(bytes: &[u8]) -> Result<Totals, String> {
    let mut trace = Trace { inner: bytes };
    let mut totals = Totals::default();
    let (games, _) = trace.header()?;
    for _ in 0..games {
        check_game(&mut trace, &mut totals)?;
    }
    Ok(totals)
}

#[test]
fn the_comparison_accepts_a_faithful_trace() {
    let bytes = synthetic_trace(200, 7);
    let totals = check_all(&bytes).unwrap();
    assert_eq!(totals.games, 200);
    assert_eq!(totals.abapa_games, 50);
    assert!(totals.plies > 200 * 20);
    assert_eq!(totals.ends.values().sum::<u64>(), 200);
}

#[test]
fn the_comparison_reports_the_first_difference() {
    let bytes = synthetic_trace(5, 11);
    // Game 0 starts after the 20-byte stream header and its 5-byte game header; each ply record
    // is 1 + 14 * 4 + 2 = 59 bytes. Change the seed count of south's house A after ply 3.
    let record = 1 + 14 * 4 + 2;
    let at = 20 + 5 + 2 * record + 1;
    let mut bad = bytes.clone();
    let n = (f32::from_le_bytes(bad[at..at + 4].try_into().unwrap()) * 48.0).round();
    bad[at..at + 4].copy_from_slice(&((n + 1.0) / 48.0).to_le_bytes());
    let err = check_all(&bad).err().expect("a corrupted trace must fail");
    assert!(err.starts_with("game 0 ply 3: state differs"), "{err}");
    assert!(err.contains("moves: "), "{err}");
    assert!(err.contains("openspiel: south ["), "{err}");
    // The three moves played so far are listed, in OpenSpiel's letters.
    let moves = err.lines().nth(1).unwrap().trim_start_matches("  moves: ");
    assert_eq!(moves.split(' ').count(), 3, "{err}");

    // A wrong legal mask at the start is caught before any move.
    let mut bad = bytes.clone();
    bad[24] = 0b011111;
    let err = check_all(&bad).err().unwrap();
    assert!(
        err.starts_with("game 0 ply 0: initial state differs"),
        "{err}"
    );

    // Wrong returns at the end are caught too.
    let mut bad = bytes;
    let mut trace = Trace { inner: &bad[..] };
    trace.header().unwrap();
    let mut totals = Totals::default();
    check_game(&mut trace, &mut totals).unwrap();
    let end = bad.len() - trace.inner.len();
    // (+1, +1) is no real outcome, so it differs from whatever game 0 returned.
    bad[end - 2] = 1;
    bad[end - 1] = 1;
    let err = check_all(&bad).err().unwrap();
    assert!(err.contains("returns differ"), "{err}");
}
