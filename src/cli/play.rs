//! `awale play`: a person against random movers at the terminal (or through a pipe).

use std::io::{self, BufRead, Write};

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use awale::notation::{
    format_move, house_range, parse_move, parse_position, player_name, render_board, result_text,
    GameRecord,
};
use awale::{Game, Rules};

const AFTER_HELP: &str = "\
Plays a game at the terminal against random movers: you take one seat, every other seat
plays a uniformly random legal move. The board is shown before each of your moves; illegal
or unreadable input is explained and asked again. At the end the result and the game record
are printed.

Examples:
  awale play                                 you are South (A-F) against a random North
  awale play --seat 1                        you are North (a-f) and move second
  awale play --rules oware3 --seat 2         three-player Owaré, you are player 2
  awale play --rules awale --seed 7          a reproducible game of the common Awalé rules
  awale play --from 'abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0'
  printf 'C\\nB\\nA\\n' | awale play --seed 1   moves read from a pipe

At the prompt type a house: its letter (A-F for South, a-f for North, 2C or C for player 2 with
3 or more players) or its number counted from 1 in your row (1 = A). `moves` lists the legal
moves, `board` redraws the board, `quit` stops. When the input ends (Ctrl-D or the end of a
pipe) the game stops and its record is printed.";

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
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    writeln!(
        out,
        "{rules}: you are {} ({}), the other seats play at random (seed {seed}).\n\
         Type a house letter or number (1 = {}); `moves`, `board`, `quit`.",
        player_name(&rules, me),
        house_range(&rules, me),
        format_move(&rules, me, 0)
    )?;
    let mut stopped: Option<&str> = None;
    'game: while !game.is_over() {
        let mover = game.to_move();
        if mover != me {
            let legal = game.legal_moves();
            let Some(&house) = legal.choose(&mut rng) else {
                break;
            };
            let info = game.apply(house)?;
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
                    writeln!(
                        out,
                        "{} is not possible: {e}. Legal moves: {}",
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
    match stopped {
        Some(why) => writeln!(out, "game stopped ({why}) at {result}")?,
        None => {
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
    writeln!(out, "\ngame record:\n{record}")?;
    Ok(())
}

/// Runs `awale play` on standard input and output.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    session(&args, &mut stdin.lock(), &mut stdout.lock())
}
