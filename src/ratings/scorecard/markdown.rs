//! A scorecard as text: the Markdown of `scorecard.md` and the one-line summary.

use super::card::Scorecard;

impl Scorecard {
    /// The card as Markdown (what `scorecard.md` holds).
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "# Scorecard: {}\n\n**{:.0} Elo** [{:.0}, {:.0}] (95%) on the {} scale of protocol `{}`{}\n\n",
            self.agent,
            self.rating,
            self.lower,
            self.upper,
            self.rules,
            self.protocol_id,
            if self.complete {
                String::new()
            } else {
                format!(
                    " — **partial**: {} of {} games (run it again to finish)",
                    self.games, self.games_scheduled
                )
            }
        );
        if let Some(ms) = self.ms_per_move {
            s += &format!("Time per move: {ms:.2} ms. ");
        }
        if let Some(e) = &self.endgame {
            s += &format!(
                "Endgame yardstick (≤ {} seeds, {} positions): {:.1}% optimal moves, {:.3} seeds lost per move.",
                e.max_seeds,
                e.positions,
                100.0 * e.optimal_share,
                e.mean_loss
            );
        }
        s += "\n\n| anchor | rating | games | won | drawn | lost | score | anchor ms/move |\n|---|---|---|---|---|---|---|---|\n";
        for a in &self.anchors {
            s += &format!(
                "| `{}` | {:.0} | {} | {} | {} | {} | {:.1}% | {} |\n",
                a.spec,
                a.rating,
                a.games,
                a.wins,
                a.draws,
                a.losses,
                100.0 * a.score,
                a.ms_per_move.map_or("–".into(), |m| format!("{m:.2}"))
            );
        }
        s
    }

    /// One line: rating, interval, protocol.
    pub fn summary(&self) -> String {
        format!(
            "{}: {:.0} [{:.0}, {:.0}] Elo on scorecard {}{}",
            self.agent,
            self.rating,
            self.lower,
            self.upper,
            self.protocol_id,
            if self.complete { "" } else { " (partial)" }
        )
    }
}
