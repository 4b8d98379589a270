//! [`ProgressBar`]: a terminal progress bar fed by a tournament's observer, shared by the CLI's
//! `awale tournament` and the trainer's evaluation tournaments.

use super::{GameResult, Progress, TournamentObserver};

/// A progress bar on stderr (or a hidden one) that follows a tournament: its length is the
/// schedule, its position the games finished (a resumed run starts where it stopped). It is
/// cleared from the terminal when dropped.
///
/// ```
/// use awale::tournament::{run_observed, Entrant, ProgressBar, TournamentConfig};
/// use awale::Rules;
/// let mut cfg = TournamentConfig::new(Rules::abapa());
/// cfg.run.games = 2;
/// let entrants = [
///     Entrant::from_spec_text("random", &cfg.rules)?,
///     Entrant::from_spec_text("greedy", &cfg.rules)?,
/// ];
/// let report = run_observed(&cfg, &entrants, &ProgressBar::new(false))?;
/// assert!(report.complete);
/// # Ok::<(), awale::AwaleError>(())
/// ```
pub struct ProgressBar(indicatif::ProgressBar);

impl ProgressBar {
    /// A bar drawn on stderr when `show` is true, a hidden one otherwise.
    pub fn new(show: bool) -> ProgressBar {
        if !show {
            return ProgressBar(indicatif::ProgressBar::hidden());
        }
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} games, {per_sec}, eta {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        ProgressBar(bar)
    }
}

impl TournamentObserver for ProgressBar {
    fn started(&self, progress: Progress) {
        self.0.set_length(progress.scheduled as u64);
        self.0.set_position(progress.done as u64);
        self.0.reset_eta();
    }

    fn game_finished(&self, _game: &GameResult, progress: Progress) {
        self.0.set_position(progress.done as u64);
    }
}

impl Drop for ProgressBar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
