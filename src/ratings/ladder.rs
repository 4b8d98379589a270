//! The rating ladder (`awale ladder RUN… --anchors SPECS`): the network generations of one or
//! more training runs ([`crate::az::generations`]) and fixed anchor agents, rated on one Elo
//! scale by maximum likelihood with 95% intervals.
//!
//! **Pairings.** Not every pair plays: generation `i` of a run meets generations `i + 1` and
//! `i + 2` of the same run, and every generation meets every anchor; the anchors meet each
//! other. With `G` generations and `A` anchors that is about `G·(2 + A) + A(A−1)/2` pairings,
//! so the cost grows linearly with the number of generations, and the graph of pairings is
//! connected (through the neighbours within a run, through the anchors across runs), which is
//! all the maximum-likelihood fit ([`crate::ratings::elo`]) needs. Without anchors, generation `i` of
//! each run also meets generation `i` of the next run, so that several runs still share one
//! scale.
//!
//! **Three or more players** (owaré for 3, 4, 6): boards of `k` players instead of pairs. Each
//! run's windows of `k` consecutive generations play (so generation `i` meets `i + 1` and
//! `i + 2`, as above, with 3 players), every generation plays at a board with every `k − 1`
//! anchors, and the anchors `k` at a time; at least `k − 1` anchors are needed when several
//! runs share the scale or a run has fewer than `k` generations. The ratings are the placing
//! ratings of the finishing orders ([`crate::ratings::placing`]), on the same Elo scale.
//!
//! **The rest is a tournament** ([`crate::tournament`]) with these pairings: paired random
//! openings, games on every core, every game appended to `OUT/games.jsonl` (a killed ladder
//! resumes with the same command, and the result is the same as one run whole), shards and
//! Ray. The Elo anchor (rating 0) is the first anchor, else the first generation.
//!
//! **Output** (in `OUT`): the tournament's files, `ladder.csv` (run, name, iteration, games,
//! self-play positions, gradient steps, wall time, Elo and its interval), `ladder.svg` (Elo
//! against iteration, wall time and self-play positions, one line per run, the anchors as
//! horizontal lines) and TensorBoard scalars in `OUT/tb` (`ladder/<run>/elo_by_iteration`,
//! `…/elo_by_positions`, `…/elo_by_seconds`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agents::{parse_agent_list, Registry};
use crate::az::generations::{self, Generation};
use crate::rules::Rules;
use crate::tournament::{
    run_observed, Entrant, Format, GameRunConfig, TournamentConfig, TournamentObserver,
    TournamentReport,
};

use crate::az::{TrainError, TrainResult};

/// Settings of a ladder.
#[derive(Debug, Clone)]
pub struct LadderConfig {
    /// Run folders (each with `generations/`).
    pub runs: Vec<PathBuf>,
    /// Anchor agents, as specs.
    pub anchors: Vec<String>,
    /// Simulations per move of the generations (`nn:…,sims=N`).
    pub sims: u32,
    /// How the games are played; `run.games` per pairing (even: each opening from both seats).
    pub run: GameRunConfig,
    /// The output folder (games, results, table, picture).
    pub out: PathBuf,
}

impl LadderConfig {
    /// Defaults: no anchors, 64 simulations, 20 games per pairing, the game run's other
    /// defaults ([`GameRunConfig::new`]: 4-ply openings, seed 0, every core).
    pub fn new(runs: Vec<PathBuf>, out: PathBuf) -> LadderConfig {
        LadderConfig {
            runs,
            anchors: Vec::new(),
            sims: 64,
            run: GameRunConfig::new(20),
            out,
        }
    }
}

/// One rated player of the ladder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderEntry {
    /// The run's label (its folder's name), or `anchor`.
    pub run: String,
    /// The player's name in the tournament (`RUN@ITERATION` for a generation).
    pub name: String,
    /// The agent spec it plays with.
    pub spec: String,
    /// Iteration of the generation (none for an anchor).
    pub iteration: Option<u64>,
    /// Self-play games before it.
    pub selfplay_games: Option<u64>,
    /// Self-play positions before it.
    pub positions: Option<u64>,
    /// Gradient steps before it.
    pub train_steps: Option<u64>,
    /// Seconds of training before it.
    pub seconds: Option<f64>,
    /// Elo (none when the fit failed).
    pub elo: Option<f64>,
    /// Lower end of the 95% interval.
    pub low: Option<f64>,
    /// Upper end of the 95% interval.
    pub high: Option<f64>,
    /// Games it played.
    pub games: u32,
}

/// The result of a ladder.
#[derive(Debug, Clone)]
pub struct LadderReport {
    /// The players: the generations of each run by iteration, then the anchors.
    pub entries: Vec<LadderEntry>,
    /// The tournament behind it.
    pub tournament: TournamentReport,
    /// Pairings played.
    pub pairings: usize,
}

impl LadderReport {
    /// The table as text.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<24} {:>9} {:>11} {:>9} {:>8} {:>8} {:>17} {:>6}\n",
            "player", "iteration", "positions", "steps", "seconds", "Elo", "95%", "games"
        );
        let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
        for e in &self.entries {
            s += &format!(
                "{:<24} {:>9} {:>11} {:>9} {:>8} {:>8} {:>17} {:>6}\n",
                e.name,
                opt(e.iteration),
                opt(e.positions),
                opt(e.train_steps),
                e.seconds
                    .map(|x| format!("{x:.0}"))
                    .unwrap_or_else(|| "-".into()),
                e.elo
                    .map(|x| format!("{x:.0}"))
                    .unwrap_or_else(|| "-".into()),
                match (e.low, e.high) {
                    (Some(l), Some(h)) => format!("[{l:.0}, {h:.0}]"),
                    _ => "-".into(),
                },
                e.games
            );
        }
        s
    }
}

/// A run's label and generations.
struct RunGenerations {
    label: String,
    generations: Vec<Generation>,
}

/// The players and pairings of a ladder: `(names, specs, pairings, entries without ratings,
/// rules)`.
type Plan = (
    Vec<String>,
    Vec<String>,
    Vec<Vec<String>>,
    Vec<LadderEntry>,
    Rules,
);

/// Finds the generations, checks that they share their rules, and chooses the pairings.
fn plan(cfg: &LadderConfig) -> TrainResult<Plan> {
    if cfg.runs.is_empty() {
        return Err(TrainError::Config(
            "a ladder needs at least one run folder".into(),
        ));
    }
    let mut runs: Vec<RunGenerations> = Vec::new();
    for (i, path) in cfg.runs.iter().enumerate() {
        let generations = generations::list(path)?;
        let mut label = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("run{i}"));
        if runs.iter().any(|r| r.label == label) {
            label = format!("{label}-{i}");
        }
        runs.push(RunGenerations { label, generations });
    }
    let rules_text = runs[0].generations[0].rules.clone();
    for r in &runs {
        for g in &r.generations {
            if g.rules != rules_text {
                return Err(TrainError::Config(format!(
                    "{} was trained for {} and {} for {}: a ladder rates networks of one rule set",
                    g.path.display(),
                    g.rules,
                    runs[0].generations[0].path.display(),
                    rules_text
                )));
            }
        }
    }
    let rules: Rules = rules_text.parse()?;
    let mut names = Vec::new();
    let mut specs = Vec::new();
    let mut entries = Vec::new();
    let mut by_run: Vec<Vec<String>> = Vec::new();
    for r in &runs {
        let mut these = Vec::new();
        for g in &r.generations {
            let name = format!("{}@{}", r.label, g.counters.iteration);
            let spec = format!("nn:path={},sims={},name={name}", g.path.display(), cfg.sims);
            if spec.matches(',').count() != 2 || g.path.to_string_lossy().contains(',') {
                return Err(TrainError::Config(format!(
                    "{}: a generation's path may not contain a comma",
                    g.path.display()
                )));
            }
            entries.push(LadderEntry {
                run: r.label.clone(),
                name: name.clone(),
                spec: spec.clone(),
                iteration: Some(g.counters.iteration),
                selfplay_games: Some(g.counters.games),
                positions: Some(g.counters.positions),
                train_steps: Some(g.counters.train_steps),
                seconds: Some(g.counters.elapsed),
                elo: None,
                low: None,
                high: None,
                games: 0,
            });
            names.push(name.clone());
            specs.push(spec);
            these.push(name);
        }
        by_run.push(these);
    }
    let anchors = parse_agent_list(&cfg.anchors.join(","))?;
    let mut anchor_names = Vec::new();
    for a in &anchors {
        let name = a.display_name();
        if names.contains(&name) {
            return Err(TrainError::Config(format!(
                "two players are named '{name}' (give an anchor a name=... option)"
            )));
        }
        entries.push(LadderEntry {
            run: "anchor".into(),
            name: name.clone(),
            spec: a.to_string(),
            iteration: None,
            selfplay_games: None,
            positions: None,
            train_steps: None,
            seconds: None,
            elo: None,
            low: None,
            high: None,
            games: 0,
        });
        names.push(name.clone());
        specs.push(a.to_string());
        anchor_names.push(name);
    }
    let pairings = if rules.players == 2 {
        pairs(&by_run, &anchor_names)
    } else {
        tables(&by_run, &anchor_names, rules.players as usize, &rules_text)?
    };
    if pairings.is_empty() {
        return Err(TrainError::Config(
            "nothing to rate: one generation and no anchors (add --anchors)".into(),
        ));
    }
    Ok((names, specs, pairings, entries, rules))
}

/// The pairings of a 2-player ladder (module documentation).
fn pairs(by_run: &[Vec<String>], anchors: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for run in by_run {
        for (i, g) in run.iter().enumerate() {
            for step in [1, 2] {
                if let Some(h) = run.get(i + step) {
                    out.push(vec![g.clone(), h.clone()]);
                }
            }
        }
    }
    for run in by_run {
        for g in run {
            for a in anchors {
                out.push(vec![g.clone(), a.clone()]);
            }
        }
    }
    for (i, a) in anchors.iter().enumerate() {
        for b in &anchors[i + 1..] {
            out.push(vec![a.clone(), b.clone()]);
        }
    }
    if anchors.is_empty() {
        for w in by_run.windows(2) {
            for (g, h) in w[0].iter().zip(&w[1]) {
                out.push(vec![g.clone(), h.clone()]);
            }
        }
    }
    out
}

/// The tables of a ladder of `k` ≥ 3 players (module documentation): each run's windows of `k`
/// consecutive generations, each generation with every `k − 1` anchors, the anchors `k` at a
/// time. Refused with fewer than `k − 1` anchors when they are needed (several runs, or a run
/// of fewer than `k` generations).
fn tables(
    by_run: &[Vec<String>],
    anchors: &[String],
    k: usize,
    rules_text: &str,
) -> TrainResult<Vec<Vec<String>>> {
    let short = by_run.iter().any(|r| r.len() < k);
    if anchors.len() < k - 1 && (by_run.len() > 1 || short || !anchors.is_empty()) {
        return Err(TrainError::Config(format!(
            "a ladder of {rules_text} seats {k} players at a board: it needs at least {} anchors \
             (--anchors mcts:sims=200,name=m1,mcts:sims=1000,name=m2, …) to fill the boards of \
             each generation{}, not {}",
            k - 1,
            if by_run.len() > 1 {
                " and to join the runs"
            } else {
                ""
            },
            anchors.len()
        )));
    }
    let mut out = Vec::new();
    for run in by_run {
        for w in run.windows(k) {
            out.push(w.to_vec());
        }
    }
    for run in by_run {
        for g in run {
            for c in subsets(anchors.len(), k - 1) {
                let mut t = vec![g.clone()];
                t.extend(c.iter().map(|&i| anchors[i].clone()));
                out.push(t);
            }
        }
    }
    for c in subsets(anchors.len(), k) {
        out.push(c.iter().map(|&i| anchors[i].clone()).collect());
    }
    Ok(out)
}

/// Every `k`-subset of `0..n` (in lexicographic order; none when `k > n`).
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    if k <= n {
        go(0, n, k, &mut Vec::with_capacity(k), &mut out);
    }
    out
}

/// The tournament of a ladder.
fn tournament_config(
    cfg: &LadderConfig,
    rules: Rules,
    pairings: Vec<Vec<String>>,
    anchor: String,
) -> TournamentConfig {
    let mut t = TournamentConfig::new(rules);
    t.format = if rules.players == 2 {
        Format::Pairings(
            pairings
                .into_iter()
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect(),
        )
    } else {
        Format::Tables(pairings)
    };
    t.run = cfg.run.clone();
    t.anchor = Some(anchor);
    t.out = Some(cfg.out.clone());
    t
}

/// Plays (or resumes) a ladder with the agents of `registry` (which must know `nn`:
/// [`crate::network::registry`]) and writes its files; `observer` sees the games and may stop it.
pub fn run_ladder(
    cfg: &LadderConfig,
    registry: &Registry,
    observer: &dyn TournamentObserver,
) -> TrainResult<LadderReport> {
    cfg.run
        .validate_paired()
        .map_err(|e| TrainError::Config(e.to_string()))?;
    let (names, specs, pairings, mut entries, rules) = plan(cfg)?;
    let mut entrants = Vec::with_capacity(specs.len());
    for spec in &specs {
        entrants.push(Entrant::from_spec(registry, &spec.parse()?, &rules)?);
    }
    let anchor = entries
        .iter()
        .find(|e| e.iteration.is_none())
        .map(|e| e.name.clone())
        .unwrap_or_else(|| names[0].clone());
    let n_pairings = pairings.len();
    let t = run_observed(
        &tournament_config(cfg, rules, pairings, anchor),
        &entrants,
        observer,
    )?;
    for e in &mut entries {
        if let Some(s) = t.standings.iter().find(|s| s.name == e.name) {
            e.elo = s.elo;
            e.low = s.lower;
            e.high = s.upper;
            e.games = s.games;
        }
    }
    let report = LadderReport {
        entries,
        tournament: t,
        pairings: n_pairings,
    };
    write_files(&report, &cfg.out)?;
    Ok(report)
}

/// Writes `ladder.csv`, `ladder.json`, `ladder.svg` and the TensorBoard scalars.
fn write_files(report: &LadderReport, out: &Path) -> TrainResult<()> {
    let io = |p: &Path, e: &dyn std::fmt::Display| TrainError::io(p, e);
    let mut csv = String::from(
        "run,name,iteration,selfplay_games,positions,train_steps,seconds,elo,low,high,games,spec\n",
    );
    let o = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let f = |v: Option<f64>| v.map(|x| format!("{x:.1}")).unwrap_or_default();
    for e in &report.entries {
        csv += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n",
            e.run,
            e.name,
            o(e.iteration),
            o(e.selfplay_games),
            o(e.positions),
            o(e.train_steps),
            f(e.seconds),
            f(e.elo),
            f(e.low),
            f(e.high),
            e.games,
            e.spec
        );
    }
    let path = out.join("ladder.csv");
    crate::files::write_replacing(&path, csv.as_bytes()).map_err(|e| io(&path, &e))?;
    let path = out.join("ladder.json");
    let json = serde_json::to_string_pretty(&report.entries).map_err(|e| io(&path, &e))?;
    crate::files::write_replacing(&path, (json + "\n").as_bytes()).map_err(|e| io(&path, &e))?;
    let path = out.join("ladder.svg");
    let mut svg = String::new();
    draw(&report.entries, &mut svg).map_err(|e| io(&path, &e))?;
    if !svg.is_empty() {
        crate::files::write_replacing(&path, svg.as_bytes()).map_err(|e| io(&path, &e))?;
    }
    let mut tb = tensorboard_rs::summary_writer::SummaryWriter::new(out.join("tb"));
    for e in report.entries.iter().filter(|e| e.iteration.is_some()) {
        let Some(elo) = e.elo else { continue };
        let tag = |what: &str| format!("ladder/{}/elo_by_{what}", e.run);
        tb.add_scalar(
            &tag("iteration"),
            elo as f32,
            e.iteration.unwrap_or(0) as usize,
        );
        tb.add_scalar(
            &tag("positions"),
            elo as f32,
            e.positions.unwrap_or(0) as usize,
        );
        tb.add_scalar(
            &tag("seconds"),
            elo as f32,
            e.seconds.unwrap_or(0.0) as usize,
        );
    }
    tb.flush();
    Ok(())
}

/// The right margin of each panel of `ladder.svg`, in pixels, where the anchors' names go.
const ANCHOR_MARGIN: u32 = 120;

/// A tick of `ladder.svg`'s axes: an integer where the value is one (`1,000`, not `1000.0`),
/// thousands grouped below 10,000, then `400k`, `1.5M`; a fraction to 3 significant digits.
fn tick_label(v: f64) -> String {
    let trim = |x: f64| {
        let s = format!("{x:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else if (v - v.round()).abs() > 1e-6 * a.max(1.0) {
        // A fraction (the wall time of a short run): 3 significant digits, 0.25, 2.5.
        let decimals = (2 - a.log10().floor() as i32).clamp(0, 9) as usize;
        let s = format!("{v:.decimals$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        let n = v.round() as i64;
        let digits = n.unsigned_abs().to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if n < 0 {
            format!("-{grouped}")
        } else {
            grouped
        }
    }
}

/// Elo against iteration, wall time and self-play positions, one line per run, the anchors as
/// dashed horizontal lines named in the right margin (an SVG by `plotters`, into `svg`; left
/// empty when nothing is rated).
fn draw(entries: &[LadderEntry], svg: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let rated: Vec<&LadderEntry> = entries.iter().filter(|e| e.elo.is_some()).collect();
    if rated.is_empty() {
        return Ok(());
    }
    let (lo, hi) = rated
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), e| {
            (
                a.min(e.low.or(e.elo).unwrap_or(0.0)),
                b.max(e.high.or(e.elo).unwrap_or(0.0)),
            )
        });
    let pad = ((hi - lo) * 0.05).max(10.0);
    let (lo, hi) = (lo - pad, hi + pad);
    let mut runs: Vec<&str> = Vec::new();
    for e in entries.iter().filter(|e| e.iteration.is_some()) {
        if !runs.contains(&e.run.as_str()) {
            runs.push(&e.run);
        }
    }
    let root = SVGBackend::with_string(svg, (1500, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 3));
    type Axis = fn(&LadderEntry) -> f64;
    let axes: [(&str, Axis); 3] = [
        ("iteration", |e| e.iteration.unwrap_or(0) as f64),
        ("wall time (s)", |e| e.seconds.unwrap_or(0.0)),
        ("self-play positions", |e| e.positions.unwrap_or(0) as f64),
    ];
    for (panel, (label, x_of)) in panels.iter().zip(axes) {
        let xmax = rated
            .iter()
            .filter(|e| e.iteration.is_some())
            .map(|e| x_of(e))
            .fold(1.0f64, f64::max);
        // The anchors' names go in the right margin, clear of the curves.
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("Elo against {label}"), ("sans-serif", 18))
            .margin(12)
            .margin_right(ANCHOR_MARGIN)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..xmax * 1.02, lo..hi)?;
        chart
            .configure_mesh()
            .x_desc(label)
            .y_desc("Elo")
            .x_labels(6)
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        for e in rated.iter().filter(|e| e.iteration.is_none()) {
            let y = e.elo.unwrap_or(0.0);
            chart.draw_series(DashedLineSeries::new(
                vec![(0.0, y), (xmax * 1.02, y)],
                6,
                4,
                BLACK.mix(0.35).stroke_width(1),
            ))?;
            let (px, py) = chart.backend_coord(&(xmax * 1.02, y));
            root.draw(&Text::new(
                e.name.clone(),
                (px + 4, py),
                ("sans-serif", 12)
                    .into_font()
                    .color(&BLACK.mix(0.6))
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        for (i, run) in runs.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = rated
                .iter()
                .filter(|e| e.run == *run && e.iteration.is_some())
                .map(|e| (x_of(e), e.elo.unwrap_or(0.0)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(run.to_string())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
            chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tick_label;

    #[test]
    fn ticks_are_integers_with_readable_thousands() {
        let got: Vec<String> = [
            0.0, 5.0, -200.0, 1000.0, 2500.0, 40000.0, 400000.0, 1500000.0, 2.5, 0.02, 0.125,
        ]
        .iter()
        .map(|v| tick_label(*v))
        .collect();
        assert_eq!(
            got,
            ["0", "5", "-200", "1,000", "2,500", "40k", "400k", "1.5M", "2.5", "0.02", "0.125"]
        );
    }
}
