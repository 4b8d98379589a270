//! [`AgentClock`]: an agent's thinking time over the games of one tournament run, the measure
//! behind "at equal time per move". It is kept beside the results, not in them: the results
//! files hold only what the seeds determine, so that a run and its replay compare bit for bit.

use std::time::Duration;

/// One agent's moves and thinking time (the time its `select` took) in the games of a run.
///
/// ```
/// use std::time::Duration;
/// use awale::tournament::AgentClock;
/// let mut c = AgentClock::new("net");
/// c.add(Duration::from_millis(30), 10);
/// c.add(Duration::from_millis(10), 10);
/// assert_eq!(c.ms_per_move(), Some(2.0));
/// assert_eq!(AgentClock::new("idle").ms_per_move(), None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AgentClock {
    /// The agent.
    pub name: String,
    /// Moves it chose (random opening plies not counted).
    pub moves: u64,
    /// Its thinking time over those moves.
    pub time: Duration,
}

impl AgentClock {
    /// No moves yet.
    pub fn new(name: impl Into<String>) -> AgentClock {
        AgentClock {
            name: name.into(),
            moves: 0,
            time: Duration::ZERO,
        }
    }

    /// Adds `moves` moves thought over in `time`.
    pub fn add(&mut self, time: Duration, moves: u64) {
        self.time += time;
        self.moves += moves;
    }

    /// Mean milliseconds per move (`None` before any move).
    pub fn ms_per_move(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.time.as_secs_f64() * 1e3 / self.moves as f64)
    }
}
