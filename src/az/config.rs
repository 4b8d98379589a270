//! The training configuration: TOML sections `[network]`, `[search]`, `[selfplay]`,
//! `[training]`, `[eval]` and `[checkpoint]`, every key optional (defaults suit 2 CPU cores).
//!
//! ```
//! use awale::az::TrainConfig;
//! let cfg = TrainConfig::from_toml_str(r#"
//!     name = "demo"
//!     rules = "abapa"
//!     [network]
//!     hidden = [64, 64]
//!     [search]
//!     kind = "puct"
//! "#).unwrap();
//! assert_eq!(cfg.network.hidden, vec![64, 64]);
//! assert!(TrainConfig::from_toml_str("[network]\nhiden = [3]").is_err());
//! ```

use serde::{Deserialize, Serialize};

use super::{TrainError, TrainResult};
use crate::batch::ObsEncoding;
use crate::rules::Rules;
use crate::search::{check_sims, Gumbel, Policy, Puct, SearchKind, SearchSettings, Uct};
use crate::tablebase::table_rules;

/// The whole configuration of a training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// A name for the run (logs and reports).
    pub name: String,
    /// The rules, as a rules spec (`abapa`, `oware3`, `abapa:max_plies=200`, ...).
    pub rules: String,
    /// The seed of everything random in the run.
    pub seed: u64,
    /// The network.
    pub network: NetworkConfig,
    /// The search used in self-play (and by default in evaluation).
    pub search: SearchConfig,
    /// Self-play.
    pub selfplay: SelfPlayConfig,
    /// Gradient steps, replay buffer and schedule.
    pub training: TrainingConfig,
    /// Periodic evaluation against the built-in agents.
    pub eval: EvalConfig,
    /// Checkpoints.
    pub checkpoint: CheckpointConfig,
}

/// The network's shape and input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkConfig {
    /// The observation encoding (`compact`, `onehot[:L]`, `thermometer[:L]`).
    pub observation: String,
    /// Widths of the hidden layers of the trunk (ReLU MLP).
    pub hidden: Vec<usize>,
}

/// The search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// `gumbel` (Gumbel root search with sequential halving), `puct` (PUCT with Dirichlet noise)
    /// or `uct` (UCB1 without priors: the network's values only).
    pub kind: SearchKind,
    /// Simulations of a full search (read as `simulations` too, its name before 0.9).
    #[serde(alias = "simulations")]
    pub sims: u32,
    /// Simulations of a fast search (playout-cap randomisation); equal to `sims` for none (read
    /// as `fast_simulations` too).
    #[serde(alias = "fast_simulations")]
    pub fast_sims: u32,
    /// Probability that a move gets a full search (and becomes a training sample).
    pub full_search_prob: f64,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// Dirichlet noise concentration at the root (PUCT, full searches).
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise in the root priors.
    pub dirichlet_fraction: f32,
    /// Gumbel: the most actions sampled at the root (m).
    pub gumbel_actions: u32,
    /// Gumbel: `c_visit` of the transform σ(q) = (c_visit + max N) · c_scale · q.
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of the transform σ.
    pub gumbel_c_scale: f32,
    /// UCT: the exploration constant of UCB1.
    pub c_uct: f32,
    /// What a finished game is worth to each player: the value head's target and the value of
    /// a finished game in the tree (`outcome`, `first`, `rank`, `seeds`: [`crate::Utility`]).
    /// The same for 2 players but `seeds`; with more, `outcome` pays 0 to each player sharing
    /// the first place (however many), `first` pays each his share of it.
    pub utility: crate::Utility,
    /// Whose value each node maximises with three or more players: `maxn` (its mover's, the
    /// default) or `paranoid` (the root player's; the others minimise it).
    pub backup: crate::search::Backup,
    /// The selection rule of the trained network at play (the `nn` agent and the
    /// evaluations), when it differs from self-play's `kind` (absent: `kind`). The owaré
    /// recipes self-play with `gumbel` and play with `puct` (docs/training.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub play_kind: Option<SearchKind>,
}

/// Self-play.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games played at once, dealt to the worker threads; each thread's games make one network
    /// batch per round.
    pub concurrent_games: usize,
    /// Worker threads of self-play (0: one per core). Results are reproducible for a given seed
    /// and thread count; a resumed run keeps its checkpoint's thread count unless this is set.
    pub threads: usize,
    /// How the search leaves reach the network. 0 (the default): each worker thread calls its
    /// own evaluator with its games' leaves and waits for it, right for a network that computes
    /// on the calling thread (burn's CPU backend, a small network). N ≥ 1: the leaves of every
    /// thread are gathered into calls of at most N leaves on evaluator threads of their own (two),
    /// at least two batches in flight per thread so that no search thread waits for them
    /// (`awale::search::gather`): right for a GPU or a Python callable, which pay per call.
    /// Either way the games are reproducible for a seed and thread count; gathered, they are the
    /// same whatever N (every shard plays until all have made their share, so they differ from
    /// those of 0, where each shard stops at its own).
    pub eval_batch: usize,
    /// New training positions per iteration.
    pub positions_per_iteration: usize,
    /// Games longer than this are cut off and adjudicated by the stores.
    pub max_plies: u32,
    /// Move temperature for the first `temperature_plies` plies (visit counts for PUCT, scale of
    /// the Gumbel noise for Gumbel).
    pub temperature: f32,
    /// Plies played at `temperature`.
    pub temperature_plies: u32,
    /// Temperature after that (0 = the best move).
    pub temperature_final: f32,
    /// Random plies at the start of each game (diversity), not recorded.
    pub random_opening_plies: u32,
    /// Distributed runs only (`awale::az::remote`): the workers play the next iteration's
    /// positions, with the weights of before this iteration's gradient steps, while the learner
    /// takes them (positions one iteration staler, the learner's and the workers' time
    /// overlapped). The pipeline drains at each checkpoint, so a run stopped and resumed there
    /// is the run that never stopped. Local runs ignore it.
    pub overlap: bool,
    /// A folder of endgame tables ("" = none; see `awale::az::selfplay_tables`): a game that reaches a
    /// position of at most `tablebase_seeds` seeds on the board ends there with the tables'
    /// exact result. `awale train` builds missing tables into the folder first.
    pub tablebase: String,
    /// Most seeds on the board of a position where a game ends on the tables.
    pub tablebase_seeds: usize,
    /// With tables, the samples they add to a game they end: `none`; `entry` (the position
    /// where the game entered them, its value the tables' and its policy target spread over
    /// their best moves); or `playout` (the entry position and the positions of perfect play
    /// from it to the end of the game, each kept with probability `search.full_search_prob`).
    pub tablebase_samples: TableSamples,
    /// With tables, positions drawn at random from them added as samples to each self-play
    /// game (0 = none): a seed count from 1 to `tablebase_seeds`, a board of that many seeds
    /// (each alike), the stores split at random with no winner yet; the policy target spread
    /// over the tables' best moves, the value that of perfect play. They teach the endgames
    /// that self-play, ended by the tables, no longer plays.
    pub tablebase_random: usize,
}

/// The samples endgame tables add to a self-play game they end (`selfplay.tablebase_samples`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableSamples {
    /// None: the game's own samples only (with the exact result as their value).
    None,
    /// The position where the game entered the tables.
    #[default]
    Entry,
    /// The entry position and the positions of perfect play from it.
    Playout,
}

/// Gradient steps, replay buffer, losses and learning-rate schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingConfig {
    /// Iterations (self-play then gradient steps) of the run.
    pub iterations: u64,
    /// Stop after this many minutes of wall time (0 = no limit); checked between iterations.
    pub max_minutes: f64,
    /// Samples per gradient step.
    pub batch_size: usize,
    /// Gradient steps per iteration.
    pub steps_per_iteration: usize,
    /// Samples the replay buffer keeps (the oldest are dropped).
    pub replay_capacity: usize,
    /// No gradient steps until the buffer holds this many samples.
    pub min_replay: usize,
    /// Peak learning rate (AdamW).
    pub lr: f64,
    /// Final learning rate of the schedule.
    pub lr_final: f64,
    /// `constant`, `cosine` (from `lr` to `lr_final` over the run) or `step` (×0.1 at 50% and 75%).
    pub lr_schedule: String,
    /// Linear warm-up steps.
    pub warmup_steps: u64,
    /// AdamW weight decay.
    pub weight_decay: f32,
    /// Weight of the value loss.
    pub value_weight: f32,
    /// Weight of the auxiliary score-difference loss.
    pub score_weight: f32,
    /// Value target = (1 - mix) · game result + mix · root search value.
    pub search_value_mix: f32,
}

/// Periodic evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalConfig {
    /// Evaluate every this many iterations (0 = only at the end).
    pub every: u64,
    /// Games per opponent (paired: each opening with the seats swapped).
    pub games: usize,
    /// Built-in agents to play (agent specs).
    pub opponents: Vec<String>,
    /// Simulations of the network's search in evaluation games (read as `simulations` too).
    #[serde(alias = "simulations")]
    pub sims: u32,
    /// Games per pairing of the opponents' calibration round-robin (their Elo reference).
    pub calibration_games: usize,
    /// Random plies of each evaluation opening.
    pub openings: u32,
    /// Games per opponent of the final evaluation (0 = `games`).
    pub final_games: usize,
    /// Opponents of the final evaluation (empty = `opponents`).
    pub final_opponents: Vec<String>,
    /// A folder of endgame tables (`awale tablebase build`) for the endgame accuracy of each
    /// evaluation: the network's share of optimal moves and mean seeds lost on a fixed, seeded
    /// set of positions the tables cover ("" = off).
    pub endgame_tables: String,
    /// Positions of the endgame accuracy.
    pub endgame_positions: usize,
}

/// Checkpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointConfig {
    /// Write a checkpoint every this many iterations (and always at the end).
    pub every: u64,
    /// Keep a *generation* every this many iterations (0 = none): a network-only file
    /// `OUT/generations/gen-NNNNNN.ckpt` (the network, the config and the counters: iteration,
    /// games, self-play positions, gradient steps, wall time; no optimiser, replay buffer or
    /// games in progress) that plays as `nn:path=…` and that `awale ladder` rates.
    pub generations_every: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            name: "default".into(),
            rules: "abapa".into(),
            seed: 0,
            network: NetworkConfig::default(),
            search: SearchConfig::default(),
            selfplay: SelfPlayConfig::default(),
            training: TrainingConfig::default(),
            eval: EvalConfig::default(),
            checkpoint: CheckpointConfig::default(),
        }
    }
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            observation: "onehot:16".into(),
            hidden: vec![128, 128],
        }
    }
}

impl Default for SearchConfig {
    /// The policies' own defaults ([`Puct`], [`Gumbel`], [`Uct`]), and the simulation counts of
    /// a 2-core run.
    fn default() -> Self {
        let (puct, gumbel, uct) = (Puct::default(), Gumbel::default(), Uct::default());
        SearchConfig {
            kind: SearchKind::Gumbel,
            sims: 32,
            fast_sims: 8,
            full_search_prob: 0.25,
            c_puct: puct.c_puct,
            dirichlet_alpha: puct.dirichlet_alpha,
            dirichlet_fraction: puct.dirichlet_fraction,
            gumbel_actions: gumbel.actions,
            gumbel_c_visit: gumbel.c_visit,
            gumbel_c_scale: gumbel.c_scale,
            c_uct: uct.c,
            utility: crate::Utility::Outcome,
            backup: crate::search::Backup::Maxn,
            play_kind: None,
        }
    }
}

// A config section makes the settings of its search here, on the config's side, so that
// `search` does not depend on `config` (`config` uses `search::SearchKind`).
impl SearchConfig {
    /// The settings of self-play's search: the policy of `kind` with this section's constants.
    pub fn settings(&self) -> SearchSettings {
        self.settings_of(self.kind)
    }

    /// The settings of the trained network at play (the `nn` agent, the evaluations): `play_kind`'s
    /// policy when set, else `kind`'s.
    pub fn play_settings(&self) -> SearchSettings {
        self.settings_of(self.play_kind.unwrap_or(self.kind))
    }

    /// The policy of `kind` with this section's constants, its utility and backup.
    pub fn settings_of(&self, kind: SearchKind) -> SearchSettings {
        let policy = match kind {
            SearchKind::Puct => Policy::Puct(Puct {
                c_puct: self.c_puct,
                dirichlet_alpha: self.dirichlet_alpha,
                dirichlet_fraction: self.dirichlet_fraction,
            }),
            SearchKind::Gumbel => Policy::Gumbel(Gumbel {
                actions: self.gumbel_actions,
                c_visit: self.gumbel_c_visit,
                c_scale: self.gumbel_c_scale,
            }),
            SearchKind::Uct => Policy::Uct(Uct {
                c: self.c_uct,
                ..Uct::default()
            }),
        };
        SearchSettings {
            policy,
            utility: self.utility,
            backup: self.backup,
        }
    }
}

/// The most leaves of one evaluator call (`selfplay.eval_batch`).
pub const MAX_EVAL_BATCH: usize = 1 << 24;

impl SelfPlayConfig {
    /// The worker threads a run uses: `threads`, or one per core when it is 0, never more than
    /// the concurrent games.
    pub fn resolved_threads(&self) -> usize {
        crate::batch::threads_or_cores(self.threads).clamp(1, self.concurrent_games.max(1))
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            concurrent_games: 128,
            threads: 0,
            eval_batch: 0,
            positions_per_iteration: 1024,
            max_plies: 300,
            temperature: 1.0,
            temperature_plies: 16,
            temperature_final: 0.0,
            random_opening_plies: 2,
            overlap: false,
            tablebase: String::new(),
            tablebase_seeds: 12,
            tablebase_samples: TableSamples::Entry,
            tablebase_random: 0,
        }
    }
}

impl Default for TrainingConfig {
    fn default() -> Self {
        TrainingConfig {
            iterations: 40,
            max_minutes: 0.0,
            batch_size: 256,
            steps_per_iteration: 16,
            replay_capacity: 100_000,
            min_replay: 1024,
            lr: 2e-3,
            lr_final: 2e-4,
            lr_schedule: "cosine".into(),
            warmup_steps: 50,
            weight_decay: 1e-4,
            value_weight: 1.0,
            score_weight: 0.5,
            search_value_mix: 0.0,
        }
    }
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            every: 10,
            games: 20,
            opponents: vec!["random".into(), "greedy".into(), "alphabeta:depth=2".into()],
            sims: 64,
            calibration_games: 10,
            openings: 4,
            final_games: 0,
            final_opponents: Vec::new(),
            endgame_tables: String::new(),
            endgame_positions: 200,
        }
    }
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        CheckpointConfig {
            every: 5,
            generations_every: 0,
        }
    }
}

/// The built-in CI-sized configuration (`training/tiny.toml`): a few seconds, for tests and CI.
pub const TINY_TOML: &str = include_str!("../../training/tiny.toml");

/// The built-in default of `awale train` without `--config` (`training/quick.toml`): the abapa
/// recipe cut to about 3 minutes on 2 cores, which ends beating greedy and alpha-beta depth 2.
pub const QUICK_TOML: &str = include_str!("../../training/quick.toml");

/// The configs built into the binary, by name: every `training/NAME.toml` of the repository
/// (`--config NAME`, [`TrainConfig::builtin`]). `tests/az.rs` checks that the table holds every
/// file of `training/` and that each parses.
pub const BUILTIN_CONFIGS: &[(&str, &str)] = &[
    ("quick", QUICK_TOML),
    ("tiny", TINY_TOML),
    ("abapa", include_str!("../../training/abapa.toml")),
    (
        "abapa-16core",
        include_str!("../../training/abapa-16core.toml"),
    ),
    ("abapa-gpu", include_str!("../../training/abapa-gpu.toml")),
    (
        "abapa-raised",
        include_str!("../../training/abapa-raised.toml"),
    ),
    ("awale", include_str!("../../training/awale.toml")),
    ("wari", include_str!("../../training/wari.toml")),
    ("oware3", include_str!("../../training/oware3.toml")),
    ("oware4", include_str!("../../training/oware4.toml")),
    ("oware6", include_str!("../../training/oware6.toml")),
];

/// Most hidden layers a network may have.
pub const MAX_HIDDEN_LAYERS: usize = 16;
/// Most weights between hidden layers (64 Mi: 256 MiB of f32), so that a config, or a
/// checkpoint's, cannot ask for an unbounded network.
pub const MAX_HIDDEN_WEIGHTS: usize = 64 << 20;

/// Config keys renamed, old name first: files and `--set` still read the old names (one name
/// per idea: `sims` wherever a simulation count is written, as in agent specs and Python).
pub const RENAMED_KEYS: [(&str, &str); 3] = [
    ("search.simulations", "search.sims"),
    ("search.fast_simulations", "search.fast_sims"),
    ("eval.simulations", "eval.sims"),
];

/// The new name of a renamed config key ([`RENAMED_KEYS`]).
pub fn renamed_key(key: &str) -> Option<&'static str> {
    RENAMED_KEYS
        .iter()
        .find(|(old, _)| *old == key)
        .map(|&(_, new)| new)
}

impl TrainConfig {
    /// Parses a TOML configuration and checks it.
    pub fn from_toml_str(text: &str) -> TrainResult<TrainConfig> {
        let cfg: TrainConfig =
            toml::from_str(text).map_err(|e| TrainError::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and checks a TOML configuration file.
    pub fn from_file(path: &std::path::Path) -> TrainResult<TrainConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| TrainError::io(path, e))?;
        TrainConfig::from_toml_str(&text).map_err(|e| match e {
            TrainError::Config(m) => TrainError::Config(format!("{}: {m}", path.display())),
            e => e,
        })
    }

    /// The built-in quick configuration, the default of `awale train`.
    pub fn quick() -> TrainConfig {
        TrainConfig::from_toml_str(QUICK_TOML).expect("training/quick.toml is valid")
    }

    /// The built-in tiny configuration.
    pub fn tiny() -> TrainConfig {
        TrainConfig::from_toml_str(TINY_TOML).expect("training/tiny.toml is valid")
    }

    /// A config built into the binary by name (see [`BUILTIN_CONFIGS`]: `quick`, `tiny`,
    /// `abapa`, ...), so that an installed `awale` (the wheel has no `training/` folder) runs
    /// every recipe.
    ///
    /// ```
    /// use awale::az::TrainConfig;
    /// assert_eq!(TrainConfig::builtin("tiny").unwrap().name, "tiny");
    /// assert_eq!(TrainConfig::builtin("abapa").unwrap().rules, "abapa");
    /// assert!(TrainConfig::builtin("training/tiny.toml").is_none());
    /// ```
    pub fn builtin(name: &str) -> Option<TrainConfig> {
        BUILTIN_CONFIGS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, text)| {
                TrainConfig::from_toml_str(text)
                    .unwrap_or_else(|e| panic!("training/{n}.toml is valid: {e}"))
            })
    }

    /// The names of the built-in configs, in [`BUILTIN_CONFIGS`]' order.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN_CONFIGS.iter().map(|(n, _)| *n).collect()
    }

    /// `--config`'s argument: a TOML file when `spec` names one, else a built-in config of that
    /// name; neither is an error that lists the built-in names and says a path is accepted.
    ///
    /// ```
    /// use awale::az::TrainConfig;
    /// assert_eq!(TrainConfig::load("quick").unwrap().name, "quick");
    /// let e = TrainConfig::load("abapx").unwrap_err().to_string();
    /// assert!(e.contains("abapa") && e.contains("a path"), "{e}");
    /// ```
    pub fn load(spec: impl AsRef<std::path::Path>) -> TrainResult<TrainConfig> {
        let spec = spec.as_ref();
        if spec.is_file() {
            return TrainConfig::from_file(spec);
        }
        if let Some(cfg) = spec.to_str().and_then(TrainConfig::builtin) {
            return Ok(cfg);
        }
        if spec.exists() {
            return TrainConfig::from_file(spec); // a folder: the reading error names it
        }
        Err(TrainError::Config(format!(
            "no config file {} and no built-in config of that name: the built-in configs are {} \
             (--config NAME); a path to a TOML file is also accepted",
            spec.display(),
            TrainConfig::builtin_names().join(", ")
        )))
    }

    /// The default folder of a run of this configuration: `runs/NAME`.
    pub fn default_out(&self) -> std::path::PathBuf {
        std::path::Path::new("runs").join(&self.name)
    }

    /// The configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a config serializes")
    }

    /// Sets one key given as `section.key=value` (a TOML value; strings may be bare), for
    /// command-line overrides.
    ///
    /// ```
    /// use awale::az::TrainConfig;
    /// let mut cfg = TrainConfig::default();
    /// cfg.set("training.iterations=3").unwrap();
    /// cfg.set("search.kind=puct").unwrap();
    /// cfg.set("network.hidden=[32,32]").unwrap();
    /// assert_eq!((cfg.training.iterations, cfg.network.hidden.clone()), (3, vec![32, 32]));
    /// assert!(cfg.set("training.nope=1").is_err());
    /// ```
    pub fn set(&mut self, assignment: &str) -> TrainResult<()> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| TrainError::Config(format!("'{assignment}' should be KEY=VALUE")))?;
        let (key, value) = (key.trim(), value.trim());
        let key = renamed_key(key).unwrap_or(key);
        let mut doc: toml::Table = toml::from_str(&self.to_toml())
            .map_err(|e| TrainError::Config(format!("internal: {e}")))?;
        let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
            Ok(mut t) => t.remove("v").expect("the key just written"),
            Err(_) => toml::Value::String(value.to_string()),
        };
        let mut parts: Vec<&str> = key.split('.').collect();
        let last = parts.pop().unwrap_or_default();
        let mut table = &mut doc;
        for p in parts {
            table = table
                .entry(p.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .ok_or_else(|| TrainError::Config(format!("'{p}' is not a section")))?;
        }
        table.insert(last.to_string(), parsed);
        let text = toml::to_string(&doc).map_err(|e| TrainError::Config(e.to_string()))?;
        *self = TrainConfig::from_toml_str(&text)
            .map_err(|e| TrainError::Config(format!("--set {assignment}: {e}")))?;
        Ok(())
    }

    /// The rules of the games.
    pub fn rules(&self) -> TrainResult<Rules> {
        let mut rules: Rules = self
            .rules
            .parse()
            .map_err(|e: crate::AwaleError| TrainError::Config(e.to_string()))?;
        if self.selfplay.max_plies > 0
            && (rules.max_plies == 0 || rules.max_plies > self.selfplay.max_plies)
        {
            rules.max_plies = self.selfplay.max_plies;
        }
        rules
            .validate()
            .map_err(|e| TrainError::Config(e.to_string()))?;
        Ok(rules)
    }

    /// The observation encoding.
    pub fn observation(&self) -> TrainResult<ObsEncoding> {
        self.network
            .observation
            .parse()
            .map_err(|e: crate::AwaleError| TrainError::Config(e.to_string()))
    }

    /// Checks every value.
    pub fn validate(&self) -> TrainResult<()> {
        let bad = |m: String| Err(TrainError::Config(m));
        let rules = self.rules()?;
        self.observation()?;
        if rules.houses as usize > crate::search::MAX_ACTIONS {
            return bad(format!(
                "{} houses per player is more than {}",
                rules.houses,
                crate::search::MAX_ACTIONS
            ));
        }
        let hidden = &self.network.hidden;
        if hidden.is_empty()
            || hidden.len() > MAX_HIDDEN_LAYERS
            || hidden.iter().any(|&h| h == 0 || h > 4096)
        {
            return bad(format!(
                "network.hidden: 1 to {MAX_HIDDEN_LAYERS} layers of widths from 1 to 4096"
            ));
        }
        // Checked before any allocation: a checkpoint's config (read from a file that may not be
        // trusted) passes here before its network is built.
        let weights: usize = hidden.windows(2).map(|w| w[0] * w[1]).sum();
        if weights > MAX_HIDDEN_WEIGHTS {
            return bad(format!(
                "network.hidden: {weights} weights between hidden layers, more than {MAX_HIDDEN_WEIGHTS}"
            ));
        }
        let s = &self.search;
        for (key, n) in [
            ("search.sims", s.sims),
            ("search.fast_sims", s.fast_sims),
            ("eval.sims", self.eval.sims),
        ] {
            check_sims(u64::from(n)).map_err(|e| TrainError::Config(format!("{key}: {e}")))?;
        }
        if s.fast_sims > s.sims {
            return bad("search.fast_sims must not exceed search.sims".into());
        }
        if !(0.0..=1.0).contains(&s.full_search_prob) || s.full_search_prob == 0.0 {
            return bad("search.full_search_prob must be in (0, 1]".into());
        }
        if s.dirichlet_alpha.is_nan() || s.dirichlet_alpha <= 0.0 {
            return bad(format!(
                "search.dirichlet_alpha must be positive, got {}",
                s.dirichlet_alpha
            ));
        }
        if !(0.0..=1.0).contains(&s.dirichlet_fraction) {
            return bad(format!(
                "search.dirichlet_fraction must be in [0, 1], got {}",
                s.dirichlet_fraction
            ));
        }
        if s.gumbel_actions == 0 {
            return bad("search.gumbel_actions must be at least 1, got 0".into());
        }
        for (key, x) in [
            ("c_puct", s.c_puct),
            ("gumbel_c_visit", s.gumbel_c_visit),
            ("gumbel_c_scale", s.gumbel_c_scale),
            ("c_uct", s.c_uct),
        ] {
            if x.is_nan() || x < 0.0 {
                return bad(format!("search.{key} must not be negative, got {x}"));
            }
        }
        let p = &self.selfplay;
        if p.threads > 1024 {
            return Err(TrainError::Config(format!(
                "selfplay.threads: {} is more than 1024",
                p.threads
            )));
        }
        if p.eval_batch > MAX_EVAL_BATCH {
            return bad(format!(
                "selfplay.eval_batch: {} is more than {MAX_EVAL_BATCH} leaves a call",
                p.eval_batch
            ));
        }
        if p.concurrent_games == 0 || p.positions_per_iteration == 0 {
            return bad(
                "selfplay.concurrent_games and positions_per_iteration must be at least 1".into(),
            );
        }
        if p.temperature < 0.0 || p.temperature_final < 0.0 {
            return bad("selfplay temperatures must not be negative".into());
        }
        validate_tables(p, &rules)?;
        let t = &self.training;
        if t.batch_size == 0 || t.replay_capacity < t.batch_size {
            return bad("training.batch_size >= 1 and replay_capacity >= batch_size".into());
        }
        if !(t.lr > 0.0 && t.lr_final >= 0.0) {
            return bad("training.lr must be positive and lr_final not negative".into());
        }
        if !["constant", "cosine", "step"].contains(&t.lr_schedule.as_str()) {
            return bad(format!(
                "training.lr_schedule '{}' is not constant, cosine or step",
                t.lr_schedule
            ));
        }
        if !(0.0..=1.0).contains(&t.search_value_mix) {
            return bad("training.search_value_mix must be in [0, 1]".into());
        }
        for o in self.eval.opponents.iter().chain(&self.eval.final_opponents) {
            o.parse::<crate::agents::AgentSpec>()
                .map_err(|e| TrainError::Config(format!("eval.opponents: {e}")))?;
        }
        if !self.eval.endgame_tables.is_empty() {
            if self.eval.endgame_positions == 0 {
                return bad("eval.endgame_positions must be at least 1".into());
            }
            crate::tablebase::Tablebase::open_shared(
                std::path::Path::new(&self.eval.endgame_tables),
                &rules,
            )
            .map_err(|e| TrainError::Config(format!("eval.endgame_tables: {e}")))?;
        }
        Ok(())
    }

    /// A fingerprint of the settings a checkpoint's contents depend on (rules, observation,
    /// network shape, seed): resuming or loading under a different fingerprint is refused.
    /// FNV-1a over a canonical text, stable across builds.
    pub fn fingerprint(&self) -> u64 {
        fnv1a(self.fingerprint_text().as_bytes())
    }

    /// The text [`TrainConfig::fingerprint`] hashes (shown in mismatch errors).
    pub fn fingerprint_text(&self) -> String {
        let rules = self
            .rules()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| self.rules.clone());
        // The utility gives the value head its meaning; named only when it is not the rules'
        // returns, so that the fingerprints of the runs made before it existed stay the same.
        let utility = match self.search.utility {
            crate::Utility::Outcome => String::new(),
            u => format!(";utility={u}"),
        };
        format!(
            "rules={rules};observation={};hidden={:?};seed={}{utility}",
            self.observation()
                .map(|o| o.to_string())
                .unwrap_or_else(|_| self.network.observation.clone()),
            self.network.hidden,
            self.seed
        )
    }

    /// The learning rate at gradient step `step` (0-based) of a run of `total` steps.
    pub fn lr_at(&self, step: u64, total: u64) -> f64 {
        let t = &self.training;
        let warm = t.warmup_steps;
        if warm > 0 && step < warm {
            return t.lr * (step + 1) as f64 / warm as f64;
        }
        let total = total.max(1);
        let frac = (step.saturating_sub(warm) as f64 / (total.saturating_sub(warm).max(1)) as f64)
            .clamp(0.0, 1.0);
        match t.lr_schedule.as_str() {
            "cosine" => {
                t.lr_final + 0.5 * (t.lr - t.lr_final) * (1.0 + (std::f64::consts::PI * frac).cos())
            }
            "step" => {
                if frac < 0.5 {
                    t.lr
                } else if frac < 0.75 {
                    t.lr * 0.1
                } else {
                    t.lr * 0.01
                }
            }
            _ => t.lr,
        }
    }
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Checks the `selfplay.tablebase*` keys of a config without opening the tables (they may not
/// be built yet).
fn validate_tables(p: &SelfPlayConfig, rules: &Rules) -> TrainResult<()> {
    if p.tablebase.is_empty() {
        if p.tablebase_random > 0 {
            return Err(TrainError::Config(format!(
                "selfplay.tablebase_random = {}: positions drawn from tables need \
                 selfplay.tablebase (a folder of tables)",
                p.tablebase_random
            )));
        }
        return Ok(());
    }
    let bad = |m: String| Err(TrainError::Config(format!("selfplay.tablebase: {m}")));
    let table = match table_rules(rules) {
        Ok(t) => t,
        Err(e) => return bad(e.to_string()),
    };
    let most = (table.total_seeds() as usize).min(crate::tablebase::MAX_SEEDS);
    if p.tablebase_seeds == 0 || p.tablebase_seeds > most {
        return bad(format!(
            "tablebase_seeds = {} should be from 1 to {most}",
            p.tablebase_seeds
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_bounded_before_they_are_built() {
        let mut cfg = TrainConfig::default();
        for (hidden, ok) in [
            (vec![4096, 4096], true),
            (vec![64; MAX_HIDDEN_LAYERS], true),
            (vec![64; MAX_HIDDEN_LAYERS + 1], false),
            (vec![4096; 6], false),
            (vec![], false),
            (vec![0], false),
            (vec![4097], false),
        ] {
            cfg.network.hidden = hidden.clone();
            assert_eq!(cfg.validate().is_ok(), ok, "{hidden:?}");
        }
    }

    #[test]
    fn defaults_validate_and_round_trip() {
        let cfg = TrainConfig::default();
        cfg.validate().unwrap();
        let back = TrainConfig::from_toml_str(&cfg.to_toml()).unwrap();
        assert_eq!(back, cfg);
        assert_eq!(back.fingerprint(), cfg.fingerprint());
        let mut other = cfg.clone();
        other.network.hidden = vec![64];
        assert_ne!(other.fingerprint(), cfg.fingerprint());
        other = cfg.clone();
        other.training.iterations += 1;
        assert_eq!(other.fingerprint(), cfg.fingerprint());
    }

    #[test]
    fn lr_schedule_warms_up_and_decays() {
        let mut cfg = TrainConfig::default();
        cfg.training.warmup_steps = 10;
        cfg.training.lr = 1.0;
        cfg.training.lr_final = 0.0;
        assert!((cfg.lr_at(0, 110) - 0.1).abs() < 1e-12);
        assert!((cfg.lr_at(10, 110) - 1.0).abs() < 1e-12);
        assert!((cfg.lr_at(60, 110) - 0.5).abs() < 1e-9);
        assert!(cfg.lr_at(110, 110).abs() < 1e-12);
    }
}
