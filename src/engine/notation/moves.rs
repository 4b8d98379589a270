//! Move notation: `A`–`F` and `a`–`f` with two players, `2C` with more, and the names of
//! players and houses.

use super::bad_move;
use crate::error::Result;
use crate::rules::Rules;

/// A player's name for messages: `South`/`North` in a 2-player game, `player N` otherwise.
///
/// ```
/// use awale::notation::player_name;
/// use awale::Rules;
/// assert_eq!(player_name(&Rules::abapa(), 1), "North");
/// assert_eq!(player_name(&Rules::oware(4).unwrap(), 3), "player 3");
/// ```
pub fn player_name(rules: &Rules, player: usize) -> String {
    match (rules.players, player) {
        (2, 0) => "South".to_string(),
        (2, 1) => "North".to_string(),
        _ => format!("player {player}"),
    }
}

/// The house letters of `player`'s row, e.g. `A-F` or `a-f` (2 players) or `2A-2D`.
///
/// ```
/// use awale::notation::house_range;
/// use awale::Rules;
/// assert_eq!(house_range(&Rules::abapa(), 1), "a-f");
/// assert_eq!(house_range(&Rules::oware(3).unwrap(), 2), "2A-2D");
/// ```
pub fn house_range(rules: &Rules, player: usize) -> String {
    let last = rules.houses.saturating_sub(1) as usize;
    format!(
        "{}-{}",
        format_move(rules, player, 0),
        format_move(rules, player, last)
    )
}

fn house_letter(house: usize, lower: bool) -> char {
    let base = if lower { b'a' } else { b'A' };
    // Houses are at most MAX_PITS (16), so the letter stays within the alphabet.
    (base + (house.min(25)) as u8) as char
}

/// Writes a move: `A`–`F` for South's houses and `a`–`f` for North's in a 2-player game, the
/// player's digit and the house letter (`2C`) with 3 or more players.
///
/// ```
/// use awale::notation::format_move;
/// use awale::Rules;
/// assert_eq!(format_move(&Rules::abapa(), 0, 2), "C");
/// assert_eq!(format_move(&Rules::abapa(), 1, 5), "f");
/// assert_eq!(format_move(&Rules::oware(3).unwrap(), 2, 2), "2C");
/// ```
pub fn format_move(rules: &Rules, player: usize, house: usize) -> String {
    if rules.players == 2 {
        house_letter(house, player == 1).to_string()
    } else {
        format!("{player}{}", house_letter(house, false))
    }
}

/// Reads a move token into `(player named by the token if any, house)`, checking the house.
fn read_move(rules: &Rules, text: &str) -> Result<(Option<usize>, usize)> {
    let t = text.trim();
    if t.is_empty() {
        return Err(bad_move(text, "empty move"));
    }
    let houses = rules.houses as usize;
    let players = rules.players as usize;
    let mut chars = t.chars();
    let (digit, letter) = match (chars.next(), chars.next(), chars.next()) {
        (Some(l), None, None) => (None, l),
        (Some(d), Some(l), None) if d.is_ascii_digit() => (Some(d), l),
        _ => {
            let expected = if players == 2 {
                "a single house letter such as C (South) or c (North)".to_string()
            } else {
                "a player digit and a house letter such as 2C".to_string()
            };
            return Err(bad_move(text, format!("expected {expected}")));
        }
    };
    if !letter.is_ascii_alphabetic() {
        return Err(bad_move(
            text,
            format!(
                "'{letter}' is not a house letter (houses are {})",
                house_range(rules, 0)
            ),
        ));
    }
    let house = (letter.to_ascii_uppercase() as u8 - b'A') as usize;
    let player = match digit {
        Some(d) => {
            let p = d.to_digit(10).unwrap_or(0) as usize;
            if players == 2 {
                return Err(bad_move(
                    text,
                    "2-player moves are a single letter: A-F for South, a-f for North",
                ));
            }
            if p >= players {
                return Err(bad_move(
                    text,
                    format!(
                        "player {p} does not exist in a {players}-player game (players are 0 to {})",
                        players - 1
                    ),
                ));
            }
            Some(p)
        }
        None if players == 2 => Some(usize::from(letter.is_ascii_lowercase())),
        None => None,
    };
    if house >= houses {
        let range = match player {
            Some(p) => house_range(rules, p),
            None => format!("A-{}", house_letter(houses - 1, false)),
        };
        return Err(bad_move(
            text,
            format!("there is no house '{letter}': houses run {range}"),
        ));
    }
    Ok((player, house))
}

/// Parses a move by `to_move` and returns its house index (0-based in the mover's row).
///
/// In a 2-player game the letter's case must be the mover's (`A`–`F` for South, `a`–`f` for
/// North). With 3 or more players the digit, when given, must be the mover's; a bare letter (in
/// either case) means the mover's house. The move's legality in a position is not checked here
/// (see [`State::apply`](crate::State::apply)).
///
/// ```
/// use awale::notation::parse_move;
/// use awale::Rules;
/// let rules = Rules::abapa();
/// assert_eq!(parse_move(&rules, 1, "f").unwrap(), 5);
/// let err = parse_move(&rules, 0, "f").unwrap_err();
/// assert!(err.to_string().contains("North"));
/// assert!(parse_move(&rules, 0, "G").is_err());
/// assert_eq!(parse_move(&Rules::oware(3).unwrap(), 2, "2C").unwrap(), 2);
/// ```
pub fn parse_move(rules: &Rules, to_move: usize, text: &str) -> Result<usize> {
    let (player, house) = read_move(rules, text)?;
    if let Some(p) = player {
        if p != to_move {
            return Err(bad_move(
                text,
                format!(
                    "that is a house of {} but {} is to move (playing {})",
                    player_name(rules, p),
                    player_name(rules, to_move),
                    house_range(rules, to_move)
                ),
            ));
        }
    }
    Ok(house)
}

/// Parses a move that names its player on its own (a letter's case in a 2-player game, the
/// digit prefix otherwise) and returns `(player, house)`. Game records use this form.
///
/// ```
/// use awale::notation::parse_move_token;
/// use awale::Rules;
/// assert_eq!(parse_move_token(&Rules::abapa(), "b").unwrap(), (1, 1));
/// assert_eq!(parse_move_token(&Rules::oware(4).unwrap(), "3A").unwrap(), (3, 0));
/// assert!(parse_move_token(&Rules::oware(4).unwrap(), "A").is_err());
/// ```
pub fn parse_move_token(rules: &Rules, text: &str) -> Result<(usize, usize)> {
    match read_move(rules, text)? {
        (Some(p), h) => Ok((p, h)),
        (None, _) => Err(bad_move(
            text,
            "with 3 or more players a recorded move names its player, e.g. 2C",
        )),
    }
}
