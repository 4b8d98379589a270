//! `awale play`: a person against any agents at the terminal (or through a pipe), with undo,
//! hints and the game record saved at the end.

use std::io::{self, BufRead, Write};

use std::path::PathBuf;

use rand::Rng;

use awale::agents::{derive_seed, parse_agent_list, Agent, Turn};
use awale::notation::{
    format_move, house_range, parse_move, parse_position, player_name, render_board, result_text,
    GameRecord,
};
use awale::{Game, Rules};

const AFTER_HELP: &str = "\
Plays a game at the terminal: you take one seat, every other seat is played by an agent
(--opponent; a random mover by default). The board is shown before each of your moves; illegal
or unreadable input is explained and asked again. At the end the result and the game record
are printed (and saved with --record).

Examples:
  awale play                                   you are South (A-F) against a random North
  awale play --opponent alphabeta:depth=8      against alpha-beta searching 8 plies
  awale play --opponent perfect:fallback_depth=8 --tablebase tablebases
  awale play --opponent nn:baseline=abapa      against the strongest shipped network
  awale play --opponent nn:path=runs/abapa/checkpoint.ckpt,sims=128   (feature train)
  awale play --seat 1 --opponent mcts:sims=2000   you are North (a-f) and move second
  awale play --rules oware3 --seat 2 --opponent mcts:sims=500,random   one agent per seat
  awale play --rules awale --seed 7 --record game.txt
  awale play --from 'abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0'
  printf 'C\\nB\\nA\\n' | awale play --seed 1     moves read from a pipe

At the prompt type a house: its letter (A-F for South, a-f for North, 2C or C for player 2 with
3 or more players) or its number counted from 1 in your row (1 = A). Commands:
  moves   the legal moves            board   redraw the board
  hint    the move of the strongest built-in search (alpha-beta depth 8 with 2 players, MCTS
          2,000 simulations otherwise) and its evaluation, and the endgame table's values
          when --tablebase covers the position
  undo    take back your last move (and the agents' replies)
  quit    stop the game
When the input ends (Ctrl-D or the end of a pipe) the game stops and its record is printed.";

/// Arguments of `awale play`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The rules spec (see `awale rules`).
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// Your seat, 0-based: 0 = South (moves first in 2-player games), 1 = North, ...
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seat: usize,
    /// Seed for the random movers and a random first player (default: drawn at random, printed).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Start from this position (position notation, see `awale show --help`) instead of the
    /// start position; its rules replace --rules.
    #[arg(long, value_name = "POSITION", conflicts_with = "rules")]
    pub from: Option<String>,
    /// The agents of the other seats: one spec for all (`alphabeta:depth=8`, `mcts:sims=2000`,
    /// `perfect`, `nn:path=...`), or one per seat in seat order, comma separated.
    #[arg(long, default_value = "random", value_name = "SPEC")]
    pub opponent: String,
    /// Save the game record (text) to this file at the end.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Endgame tables for `hint` (`awale tablebase build`); used when they cover the rules.
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
}

/// An agent per seat, none at the person's.
type Seats = Vec<Option<Box<dyn Agent>>>;

/// The agents of the seats other than `me` (None at `me`), built from `--opponent`.
fn opponents(
    text: &str,
    rules: &Rules,
    me: usize,
    seed: u64,
) -> Result<Seats, Box<dyn std::error::Error>> {
    let specs = parse_agent_list(text)?;
    let players = rules.players as usize;
    if specs.len() != 1 && specs.len() != players - 1 {
        return Err(format!(
            "--opponent takes one agent for every other seat, or one per seat ({} here); got {}",
            players - 1,
            specs.len()
        )
        .into());
    }
    let registry = awale::agent_kinds::available();
    let mut seats: Seats = Vec::with_capacity(players);
    let mut k = 0;
    for seat in 0..players {
        if seat == me {
            seats.push(None);
            continue;
        }
        let spec = &specs[k.min(specs.len() - 1)];
        k += 1;
        let mut agent = registry.build(spec, rules)?;
        agent.reset(derive_seed(seed, seat as u64));
        seats.push(Some(agent));
    }
    Ok(seats)
}

/// The `hint` text: [`awale::agents::hint`], and the table's values when it covers the position.
fn hint(
    game: &Game,
    table: Option<&awale::tablebase::Tablebase>,
) -> Result<String, Box<dyn std::error::Error>> {
    let rules = game.rules();
    let me = game.to_move();
    let (best, thoughts) = awale::agents::hint(game, 0)?;
    let mut out = format!(
        "hint: {} ({})",
        format_move(rules, me, best),
        thoughts.summary
    );
    if let Some(t) = table.filter(|t| game.state().board_seeds(rules) as usize <= t.max_seeds()) {
        let p = t.probe(game.state())?;
        let best: Vec<String> = p
            .best_moves()
            .iter()
            .map(|&h| format_move(rules, me, h))
            .collect();
        out.push_str(&format!(
            "\nperfect play: {} of the {} seeds on the board for you{}; best: {}",
            p.value,
            p.seeds,
            if p.cycle { " (by the cycle rule)" } else { "" },
            best.join(" ")
        ));
    }
    Ok(out)
}

/// Reads the person's input as a house of `player`: a 1-based number or move notation.
fn read_house(rules: &Rules, player: usize, text: &str) -> Result<usize, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let houses = rules.houses as usize;
        return match text.parse::<usize>() {
            Ok(n) if (1..=houses).contains(&n) => Ok(n - 1),
            _ => Err(format!(
                "house number {text} is out of range: your houses are 1 to {houses} ({})",
                house_range(rules, player)
            )),
        };
    }
    parse_move(rules, player, text).map_err(|e| e.to_string())
}

/// The legal moves of the player to move, in move notation.
fn legal_text(game: &Game) -> String {
    game.legal_moves()
        .into_iter()
        .map(|h| format_move(game.rules(), game.to_move(), h))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Describes what a move captured, e.g. ` (captures 3)`.
fn capture_text(info: &awale::MoveInfo) -> String {
    let mut s = String::new();
    if info.captured > 0 {
        s.push_str(&format!(" (captures {})", info.captured));
    }
    let others = info.any_captured - info.captured;
    if others > 0 {
        s.push_str(&format!(" ({others} taken out of turn by their owners)"));
    }
    s
}

/// Why an agent that forfeits failed, escaped for the terminal ([`awale::protocol::printable`]).
fn forfeit_reason(e: awale::AwaleError) -> String {
    let reason = match e {
        awale::AwaleError::AgentFailed { reason, .. } => reason,
        other => other.to_string(),
    };
    awale::protocol::printable(&reason).into_owned()
}

/// Plays one session, reading the person's moves from `input` and writing to `out`.
pub fn session(
    args: &Args,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), Box<dyn std::error::Error>> {
    let seed = args.seed.unwrap_or_else(|| rand::rng().random());
    let mut game = match &args.from {
        Some(pos) => {
            let (rules, state) = parse_position(pos)?;
            Game::from_state(rules, state)
        }
        None => Game::with_seed(args.rules.parse()?, seed),
    };
    let rules = *game.rules();
    let players = rules.players as usize;
    if args.seat >= players {
        return Err(format!(
            "seat {} does not exist: {} has {players} players (seats 0 to {})",
            args.seat,
            rules,
            players - 1
        )
        .into());
    }
    let me = args.seat;
    let mut agents = opponents(&args.opponent, &rules, me, seed)?;
    let table = match &args.tablebase {
        Some(dir) => Some(awale::tablebase::Tablebase::open_shared(dir, &rules)?),
        None => None,
    };
    let names: Vec<String> = agents.iter().flatten().map(|a| a.name()).collect();
    let mut shown = names.clone();
    shown.dedup();
    writeln!(
        out,
        "{rules}: you are {} ({}) against {} (seed {seed}).\n\
         Type a house letter or number (1 = {}); `moves`, `board`, `hint`, `undo`, `quit`.",
        player_name(&rules, me),
        house_range(&rules, me),
        shown.join(", "),
        format_move(&rules, me, 0)
    )?;
    let mut stopped: Option<&str> = None;
    // The seat that lost by forfeit (an engine that crashed, hung or answered a bad move), why.
    let mut forfeit: Option<(usize, String)> = None;
    'game: while !game.is_over() {
        let mover = game.to_move();
        if mover != me {
            let agent = agents[mover]
                .as_mut()
                .expect("an agent at every other seat");
            let played = agent
                .select(&Turn::from_game(&game))
                .and_then(|house| Ok((house, game.apply(house)?)));
            let (house, info) = match played {
                Ok(played) => played,
                Err(e) if agent.forfeits() => {
                    let why = forfeit_reason(e);
                    writeln!(
                        out,
                        "{} ({}) failed and forfeits: {why}",
                        player_name(&rules, mover),
                        awale::protocol::printable(&agent.name())
                    )?;
                    forfeit = Some((mover, why));
                    break 'game;
                }
                Err(e) => return Err(e.into()),
            };
            writeln!(
                out,
                "{} plays {}{}",
                player_name(&rules, mover),
                format_move(&rules, mover, house),
                capture_text(&info)
            )?;
            continue;
        }
        write!(out, "\n{}", render_board(&rules, game.state()))?;
        loop {
            write!(
                out,
                "{} to move [{}]> ",
                player_name(&rules, me),
                legal_text(&game)
            )?;
            out.flush()?;
            let mut bytes = Vec::new();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                writeln!(out)?;
                stopped = Some("the input ended");
                break 'game;
            }
            // Bytes that are not UTF-8 become replacement characters and are refused below.
            let line = String::from_utf8_lossy(&bytes);
            let text = line.trim();
            match text.to_ascii_lowercase().as_str() {
                "" => continue,
                "quit" | "q" | "exit" | "resign" => {
                    stopped = Some("you quit");
                    break 'game;
                }
                "moves" | "help" | "?" => {
                    writeln!(
                        out,
                        "legal moves: {} (or their numbers in your row, 1 = {})",
                        legal_text(&game),
                        format_move(&rules, me, 0)
                    )?;
                    continue;
                }
                "board" => {
                    write!(out, "{}", render_board(&rules, game.state()))?;
                    continue;
                }
                "hint" => {
                    writeln!(out, "{}", hint(&game, table.as_deref())?)?;
                    continue;
                }
                "undo" => {
                    // Back to the person's previous turn: drop the moves since it, and it.
                    match game.taken_back(|seat| seat == me)? {
                        None => writeln!(out, "nothing to undo: you have not moved yet")?,
                        Some((shorter, plies)) => {
                            game = shorter;
                            writeln!(
                                out,
                                "took back {plies} move{}",
                                if plies == 1 { "" } else { "s" }
                            )?;
                            write!(out, "\n{}", render_board(&rules, game.state()))?;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let house = match read_house(&rules, me, text) {
                Ok(h) => h,
                Err(why) => {
                    writeln!(out, "cannot read that move: {why}")?;
                    continue;
                }
            };
            match game.apply(house) {
                Ok(info) => {
                    writeln!(
                        out,
                        "you play {}{}",
                        format_move(&rules, me, house),
                        capture_text(&info)
                    )?;
                    break;
                }
                Err(e) => {
                    // The reason alone: the move is named as the prompt names moves.
                    let why = match e {
                        awale::AwaleError::IllegalMove { reason, .. } => reason.to_string(),
                        e => e.to_string(),
                    };
                    writeln!(
                        out,
                        "{} is not possible: {why}. Legal moves: {}",
                        format_move(&rules, me, house),
                        legal_text(&game)
                    )?;
                }
            }
        }
    }
    if stopped.is_none() {
        write!(out, "\n{}", render_board(&rules, game.state()))?;
    }
    let result = result_text(&rules, game.state());
    match (stopped, &forfeit) {
        (Some(why), _) => writeln!(out, "game stopped ({why}) at {result}")?,
        (None, Some((seat, _))) => {
            // As in a tournament: the seat that forfeits loses; with two players the other wins.
            let verdict = if players == 2 {
                "you win"
            } else {
                "the game ends there"
            };
            writeln!(
                out,
                "result: {} forfeits at {result}: {verdict}",
                player_name(&rules, *seat)
            )?;
        }
        (None, None) => {
            let winners = game.state().winners(&rules);
            let verdict = if winners.is_empty() {
                "no winner"
            } else if !winners.contains(&me) {
                "you lose"
            } else if winners.len() == 1 {
                "you win"
            } else {
                "you share the win"
            };
            writeln!(out, "result: {result}: {verdict}")?;
        }
    }
    let mut record = GameRecord::from_game(&game);
    record
        .tags
        .push(("Person".to_string(), player_name(&rules, me)));
    record.tags.push(("Seed".to_string(), seed.to_string()));
    record
        .tags
        .push(("Opponents".to_string(), names.join(", ")));
    if let Some((seat, why)) = &forfeit {
        record.tags.push((
            "Termination".to_string(),
            format!("{} forfeits: {why}", player_name(&rules, *seat)),
        ));
    }
    if let Some(path) = &args.record {
        awale::files::write_replacing(path, record.to_string().as_bytes())
            .map_err(|e| format!("cannot save the record to {}: {e}", path.display()))?;
        writeln!(out, "record saved to {}", path.display())?;
    }
    writeln!(out, "\ngame record:\n{record}")?;
    Ok(())
}

/// Runs `awale play` on standard input and output.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    session(&args, &mut stdin.lock(), &mut stdout.lock())
}
