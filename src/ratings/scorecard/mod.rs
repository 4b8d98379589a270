//! The scorecard: an agent's rating on a published, fixed scale, comparable between runs,
//! machines and papers (as CCRL's lists or fishtest's normalized Elo are for chess engines).
//!
//! A *protocol* fixes everything that decides the number: for each rule set, the anchor agents
//! and their ratings (computed once, by a large round-robin among the anchors, and stored with
//! the protocol; `random` is 0 on every scale), the seed, the random openings, the games against
//! each anchor and the prior. [`run`] plays the agent against every anchor (a gauntlet: paired
//! openings, each played from every seat; resumable), then fits the agent's rating with the
//! anchors' ratings pinned ([`crate::ratings::elo::rate_against`]) and a 95% interval. Beside it: the
//! agent's score against each anchor, its time per move, and, where the tables are given, its
//! endgame accuracy on the fixed yardstick ([`crate::ratings::endgame`]). With 3 or more players the
//! agent sits at tables of anchors and the comparisons are its placings (Plackett–Luce's
//! pairwise composite likelihood, as [`crate::ratings::placing`]), the interval clustered by game.
//!
//! The protocol of this version is the file `scorecard/v1.toml`, compiled in; its
//! identifier (`v1/abapa/<hash>`) names the version, the rule set and the SHA-256 of that rule
//! set's part, and every scorecard records it. A scorecard written under another protocol
//! version is refused with both versions named.
//!
//! ```
//! use awale::ratings::scorecard::{protocol, PROTOCOL_VERSION};
//! let p = protocol("abapa").unwrap();
//! assert_eq!(p.rules, "abapa");
//! assert!(p.id().starts_with(&format!("v{PROTOCOL_VERSION}/abapa/")));
//! assert_eq!(p.anchors[0].spec, "random");
//! assert_eq!(p.anchors[0].rating, 0.0);
//! assert!(protocol("chess").is_err());
//! ```
//!
//! The files, one job each: [`protocol`](mod@protocol) (the protocol file and its parts), [`gauntlet`] (the
//! games and the rating), [`card`] (the card as data and its JSON file), [`markdown`] (the card
//! as text) and [`calibration`] (the anchors' own ratings).

pub mod calibration;
pub mod card;
pub mod gauntlet;
pub mod markdown;
pub mod protocol;

pub use calibration::calibrate;
pub use card::{write, AnchorScore, EndgameCard, Scorecard, CARD_LIMIT, FORMAT};
pub use gauntlet::{run, ScorecardOptions};
pub use protocol::{
    protocol, Anchor, Protocol, ProtocolFile, Yardstick, PROTOCOL_TOML, PROTOCOL_VERSION,
};
