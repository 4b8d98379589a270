//! [`SearchSettings`]: the selection rule with its settings ([`Policy`]), what a finished game
//! is worth ([`Utility`]) and whose value each node maximises ([`Backup`]).

use super::policy::{Policy, SearchKind};
use super::tree::Backup;
use crate::utility::Utility;

/// The constants of a search (a training config's `[search]` section makes them with
/// `SearchConfig::settings`).
///
/// ```
/// use awale::search::{Policy, SearchKind, SearchSettings, Uct};
/// let s = SearchSettings::new(Policy::Uct(Uct { c: 0.7, ..Uct::default() }));
/// assert_eq!(s.kind(), SearchKind::Uct);
/// assert_eq!(SearchSettings::default().kind(), SearchKind::Gumbel);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SearchSettings {
    /// The selection rule and its constants.
    pub policy: Policy,
    /// What a finished or cut-off game in the tree is worth to each player
    /// ([`Utility`]; the evaluator's values should mean the same).
    pub utility: Utility,
    /// Whose value each node maximises: its own mover's (max^n, the default) or, with three
    /// or more players, the root player's for him and its opposite for everyone else
    /// (*paranoid*: the others play against him). The same with two players.
    pub backup: Backup,
}

impl SearchSettings {
    /// `policy` with the default utility (the rules' outcome) and backup (max^n).
    pub fn new(policy: Policy) -> SearchSettings {
        SearchSettings {
            policy,
            ..SearchSettings::default()
        }
    }

    /// The default settings of `kind`'s policy.
    pub fn of_kind(kind: SearchKind) -> SearchSettings {
        SearchSettings::new(Policy::of_kind(kind))
    }

    /// The selection rule's name.
    pub fn kind(&self) -> SearchKind {
        self.policy.kind()
    }
}

/// The most simulations a search may be given, wherever a simulation count is read (agent
/// specs, training configs, Python): a tree of that many nodes would hold about 284 GB, so a
/// budget this large is one meant to be cut by a clock (`move_time_ms`).
pub const MAX_SIMS: u32 = 1_000_000_000;

/// Checks a simulation count: a whole number from 1 to [`MAX_SIMS`]; the error is the reason.
///
/// ```
/// use awale::search::check_sims;
/// assert_eq!(check_sims(64), Ok(64));
/// assert!(check_sims(0).unwrap_err().contains("between 1 and"));
/// ```
pub fn check_sims(n: u64) -> Result<u32, String> {
    if n == 0 || n > u64::from(MAX_SIMS) {
        return Err(format!("{n} is not between 1 and {MAX_SIMS}"));
    }
    Ok(n as u32)
}
