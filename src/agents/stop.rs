//! [`StopSignal`]: a flag that ends an agent's thinking from outside (another thread, a server
//! whose game was deleted). A searching agent given one ([`super::Agent::set_stop`]) reads it
//! where it reads its clock and, once it is raised, plays its best move found so far.
//!
//! ```
//! use awale::agents::{build_agent, StopSignal, Turn};
//! use awale::{Game, Rules};
//! let rules = Rules::abapa();
//! let game = Game::new(rules);
//! let mut agent = build_agent("mcts:sims=100000000", &rules).unwrap();
//! let stop = StopSignal::new();
//! agent.set_stop(stop.clone());
//! let thinker = std::thread::spawn(move || agent.select(&Turn::from_game(&game)).unwrap());
//! std::thread::sleep(std::time::Duration::from_millis(20));
//! stop.stop();
//! assert!(thinker.join().unwrap() < 6); // a legal move, soon after the stop
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared flag, raised once by [`StopSignal::stop`] and seen by every clone. Cheap to read.
///
/// ```
/// use awale::agents::StopSignal;
/// let a = StopSignal::new();
/// let b = a.clone();
/// assert!(!b.is_stopped());
/// a.stop();
/// assert!(b.is_stopped());
/// ```
#[derive(Debug, Clone, Default)]
pub struct StopSignal(Arc<AtomicBool>);

impl StopSignal {
    /// A signal not yet raised.
    pub fn new() -> StopSignal {
        StopSignal::default()
    }

    /// Raises the signal, for good: the agents reading it end their thinking.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the signal was raised (one atomic load).
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Whether `stop` is given and raised.
#[inline]
pub(crate) fn stopped(stop: Option<&StopSignal>) -> bool {
    stop.is_some_and(StopSignal::is_stopped)
}

/// The limit of a search that reads a clock and a stop signal
/// ([`crate::search::Search::run`]): `None` when there is neither, else a test that is true once
/// `deadline` has passed or `stop` is raised.
pub fn search_limit(
    deadline: Option<std::time::Instant>,
    stop: Option<&StopSignal>,
) -> Option<impl Fn() -> bool + use<>> {
    if deadline.is_none() && stop.is_none() {
        return None;
    }
    let stop = stop.cloned();
    Some(move || stopped(stop.as_ref()) || deadline.is_some_and(|d| std::time::Instant::now() >= d))
}
