//! `awale show POSITION`: a position as an ASCII board, with its legal moves and status.

use awale::notation::{format_move, format_position, parse_position, render_board};

const AFTER_HELP: &str = "\
Prints a position as an ASCII board, with the legal moves of the player to move in move
notation (A-F for South, a-f for North; 2C for player 2's third house with 3 or more
players), the stores and the status.

Examples:
  awale show abapa
  awale show oware3
  awale show 'abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0 80'
  awale show wari 1,0,0,0,0,0/0,0,0,0,0,2 25,20 1

POSITION is RULES ROWS STORES TO_MOVE [PLY]:
  RULES    a rules spec (see `awale rules`), e.g. abapa or oware:players=3
  ROWS     each player's houses in sowing order (A first), comma separated, players separated
           by '/'; with 2 players South (A-F) comes first, then North (a-f)
  STORES   each player's captured seeds, comma separated
  TO_MOVE  the player to move, 0-based (0 = South)
  PLY      plies played so far (optional, default 0)
RULES alone, or RULES start [TO_MOVE], is the start position. The position may be given as one
quoted argument or as separate words.";

/// Arguments of `awale show`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The position in position notation, or just a rules spec for its start position.
    #[arg(required = true, num_args = 1.., value_name = "POSITION")]
    pub position: Vec<String>,
}

/// The text `awale show` prints for a position.
pub fn describe(text: &str) -> awale::Result<String> {
    let (rules, state) = parse_position(text)?;
    let mut out = render_board(&rules, &state);
    out.push('\n');
    out.push_str(&format!(
        "position:    {}\n",
        format_position(&rules, &state)
    ));
    let legal: Vec<String> = state
        .legal_moves(&rules)
        .into_iter()
        .map(|h| format_move(&rules, state.to_move(), h))
        .collect();
    let scores: Vec<String> = state.scores()[..rules.players as usize]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if legal.is_empty() {
        out.push_str("legal moves: none\n");
    } else {
        out.push_str(&format!("legal moves: {}\n", legal.join(" ")));
    }
    out.push_str(&format!("stores:      {}\n", scores.join("-")));
    out.push_str(&format!("status:      {}\n", state.status()));
    Ok(out)
}

/// Runs `awale show`.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    out!("{}", describe(&args.position.join(" "))?);
    Ok(())
}
