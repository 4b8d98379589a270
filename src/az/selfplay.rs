//! Self-play: many games at once, sharded over worker threads, each shard's search leaves
//! evaluated in one network batch per round.
//!
//! The concurrent games are dealt to `threads` *shards*; each shard runs on its own thread with
//! its own [`LeafEvaluator`] (made by the caller's factory, e.g. a
//! [`super::network::NetworkEvaluator`] over a shared network). Every round, each game of a shard
//! walks its [`Search`] to the next leaf; the shard's leaves go to its evaluator in one batch;
//! the evaluations are delivered back. A game whose search is complete plays its move at once
//! and starts the next move's search in the same round, so a shard's batch stays as large as its
//! number of games. Shards never wait for each other within a call.
//!
//! - **Playout-cap randomisation** (Wu 2019): each move gets a full search with probability
//!   `full_search_prob` (root noise on; the position becomes a training sample) and a fast
//!   search otherwise (no Dirichlet noise; not recorded).
//! - **Temperature schedule**: for the first `temperature_plies` plies the move is drawn with
//!   `temperature` (visit counts ^ 1/T for PUCT; Gumbel noise scaled by T for Gumbel), after that
//!   with `temperature_final` (0 = the search's best move).
//! - Each game starts with `random_opening_plies` random moves (not recorded) and is cut off at
//!   the rules' ply limit (adjudicated by the stores).
//! - **Endgame tables** (optional, [`SelfPlaySettings::endgame`]): a game ends as soon as it
//!   reaches a position the tables cover, with the stores perfect play gives from there; the
//!   entry position may become a sample with the tables' value and best moves
//!   ([`super::selfplay_tables`]).
//!
//! Game `k` is seeded from the run seed and `k`; shard `w` of `T` plays games `w, w + T, w + 2T…`,
//! and [`SelfPlay::run`] asks each shard for a fixed share of the positions and appends the
//! shards' samples to the buffer in shard order. Self-play is therefore a pure function of the
//! seed, the network and the thread count: the same seed and thread count reproduce a run bit
//! for bit whatever the timing, while another thread count plays other (equally valid) games.
//! With one thread the games are those of the single-threaded trainer of 0.1.0.
//! [`SelfPlay::run`] stops between rounds; the searches then in progress are dropped (the games
//! go on next time), which keeps the state to checkpoint small. The byte codec of the games in
//! progress ([`SelfPlay::encode`], [`SelfPlay::decode`]) is in `selfplay/codec.rs`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::data::{ReplayBuffer, Sample};
use super::selfplay_tables::SelfPlayTables;
use super::TrainResult;
use crate::agents::{derive_seed, random_bit};
use crate::history::History;
use crate::rules::{Rules, MAX_PLAYERS};
use crate::search::gather::{lines, pipelined_rounds, serve, EvaluatorLoad, Line, ServerEnd};
use crate::search::{
    Evaluation, Forest, LeafEvaluator, Rounds, Search, SearchSettings, MAX_ACTIONS,
};
use crate::state::State;

mod codec;

/// The settings of self-play.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfPlaySettings {
    /// The search.
    pub search: SearchSettings,
    /// Simulations of a full search.
    pub sims: u32,
    /// Simulations of a fast search.
    pub fast_sims: u32,
    /// Probability of a full search.
    pub full_search_prob: f64,
    /// Temperature of the first plies.
    pub temperature: f32,
    /// Plies played at `temperature`.
    pub temperature_plies: u32,
    /// Temperature afterwards.
    pub temperature_final: f32,
    /// Random plies at the start of each game.
    pub random_opening_plies: u32,
    /// Weight of the root search value in the value target.
    pub search_value_mix: f32,
    /// The seed games derive from.
    pub seed: u64,
    /// Endgame tables that end games early with the exact result (`selfplay.tablebase`).
    pub endgame: Option<SelfPlayTables>,
}

impl SelfPlaySettings {
    /// The settings of a training configuration.
    pub fn from_config(cfg: &super::TrainConfig) -> SelfPlaySettings {
        SelfPlaySettings {
            search: cfg.search.settings(),
            sims: cfg.search.sims,
            fast_sims: cfg.search.fast_sims,
            full_search_prob: cfg.search.full_search_prob,
            temperature: cfg.selfplay.temperature,
            temperature_plies: cfg.selfplay.temperature_plies,
            temperature_final: cfg.selfplay.temperature_final,
            random_opening_plies: cfg.selfplay.random_opening_plies,
            search_value_mix: cfg.training.search_value_mix,
            seed: derive_seed(cfg.seed, 0x5e1f),
            endgame: None,
        }
    }

    /// [`SelfPlaySettings::from_config`] with the config's endgame tables opened
    /// (`selfplay.tablebase`; they must exist: [`super::selfplay_tables::prepare`] builds them).
    pub fn for_run(cfg: &super::TrainConfig) -> TrainResult<SelfPlaySettings> {
        let mut s = SelfPlaySettings::from_config(cfg);
        s.endgame = SelfPlayTables::open(cfg)?;
        Ok(s)
    }
}

/// What one call of [`SelfPlay::run`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Training positions produced.
    pub positions: u64,
    /// Moves played (full and fast searches).
    pub moves: u64,
    /// Positions evaluated by the network.
    pub evaluations: u64,
    /// Network calls.
    pub batches: u64,
    /// The largest batch.
    pub max_batch: usize,
    /// Plies of the finished games, summed.
    pub plies: u64,
    /// Finished games won by the first player to move (2-player games).
    pub first_player_wins: u64,
    /// Finished games drawn.
    pub draws: u64,
    /// Finished games cut off at the ply limit.
    pub truncated: u64,
    /// Finished games ended by the endgame tables.
    pub tablebase_ends: u64,
}

impl SelfPlayStats {
    /// Adds another shard's counts (the largest batch is the larger one).
    pub fn merge(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.positions += o.positions;
        self.moves += o.moves;
        self.evaluations += o.evaluations;
        self.batches += o.batches;
        self.max_batch = self.max_batch.max(o.max_batch);
        self.plies += o.plies;
        self.first_player_wins += o.first_player_wins;
        self.draws += o.draws;
        self.truncated += o.truncated;
        self.tablebase_ends += o.tablebase_ends;
    }

    /// Positions per network call, on average.
    pub fn mean_batch(&self) -> f64 {
        self.evaluations as f64 / self.batches.max(1) as f64
    }
}

#[derive(Debug, Clone)]
struct Pending {
    state: State,
    policy: [f32; MAX_ACTIONS],
    search_value: [f32; MAX_PLAYERS],
}

#[derive(Debug, Clone)]
struct Slot {
    game: u64,
    first: usize,
    state: State,
    history: History,
    rng: ChaCha8Rng,
    search: Search,
    searching: bool,
    full: bool,
    pending: Vec<Pending>,
}

/// Concurrent self-play games sharded over worker threads (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct SelfPlay {
    shards: Vec<Shard>,
}

/// One worker's games.
#[derive(Debug, Clone)]
struct Shard {
    rules: Rules,
    settings: SelfPlaySettings,
    slots: Vec<Slot>,
    /// The shard's index `w`: it plays games `w, w + stride, …`.
    index: u64,
    /// The next game this shard starts.
    next_game: u64,
    /// The number of shards.
    stride: u64,
    /// The many-tree driver of the shard's searches.
    rounds: Rounds,
}

impl SelfPlay {
    /// `concurrent` games under `rules` on one thread.
    pub fn new(rules: Rules, settings: SelfPlaySettings, concurrent: usize) -> SelfPlay {
        SelfPlay::with_threads(rules, settings, concurrent, 1)
    }

    /// `concurrent` games under `rules` dealt to `threads` shards (at least 1, at most
    /// `concurrent`; shard `w` gets games `w, w + threads, …` and `concurrent / threads` slots,
    /// one more for the first `concurrent % threads` shards).
    pub fn with_threads(
        rules: Rules,
        settings: SelfPlaySettings,
        concurrent: usize,
        threads: usize,
    ) -> SelfPlay {
        let t = threads.clamp(1, concurrent.max(1));
        let shards = (0..t)
            .map(|w| {
                let n = concurrent / t + usize::from(w < concurrent % t);
                Shard::new(rules, settings.clone(), n, w as u64, t as u64)
            })
            .collect();
        SelfPlay { shards }
    }

    /// The number of shards (worker threads of [`SelfPlay::run`]).
    pub fn threads(&self) -> usize {
        self.shards.len()
    }

    /// Games started so far.
    pub fn games_started(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| (s.next_game - s.index) / s.stride)
            .sum()
    }

    /// Plays until at least `min_positions` new samples went to `buffer`: each shard on its own
    /// thread (the first on the calling thread) with an evaluator made by `make_evaluator`, until
    /// it has produced its share of the positions (`min_positions / threads`, one more for the
    /// first `min_positions % threads` shards). The samples go to `buffer` in shard order, so
    /// the result does not depend on timing. Searches in progress are then dropped; their games
    /// go on at the next call.
    pub fn run<E, F>(
        &mut self,
        make_evaluator: F,
        min_positions: usize,
        buffer: &mut ReplayBuffer,
    ) -> SelfPlayStats
    where
        E: LeafEvaluator,
        F: Fn() -> E + Sync,
    {
        let (stats, samples) = self.run_shards(0..self.shards.len(), make_evaluator, min_positions);
        for x in samples {
            buffer.push(x);
        }
        stats
    }

    /// What [`SelfPlay::run`] does for the shards in `shards` only (one thread each), returning
    /// their samples in shard order: each shard plays its share of `min_positions` (the total of
    /// every shard), so the shards of a run may play in different processes and their samples,
    /// joined in shard order, are those of [`SelfPlay::run`] (see `awale::az::remote`).
    ///
    /// # Panics
    /// If `shards` is empty or past the last shard.
    pub fn run_shards<E, F>(
        &mut self,
        shards: std::ops::Range<usize>,
        make_evaluator: F,
        min_positions: usize,
    ) -> (SelfPlayStats, Vec<Sample>)
    where
        E: LeafEvaluator,
        F: Fn() -> E + Sync,
    {
        let t = self.shards.len();
        assert!(
            !shards.is_empty() && shards.end <= t,
            "shards {shards:?} of {t}"
        );
        let share = |w: usize| min_positions / t + usize::from(w < min_positions % t);
        let first_index = shards.start;
        let mine = &mut self.shards[shards];
        let mut results: Vec<(SelfPlayStats, Vec<Sample>)> = Vec::with_capacity(mine.len());
        if mine.len() == 1 {
            let mut e = make_evaluator();
            results.push(mine[0].run(&mut e, share(first_index)));
        } else {
            let make = &make_evaluator;
            std::thread::scope(|scope| {
                let (first, rest) = mine.split_first_mut().expect("one shard at least");
                let handles: Vec<_> = rest
                    .iter_mut()
                    .enumerate()
                    .map(|(k, shard)| {
                        let quota = share(first_index + k + 1);
                        std::thread::Builder::new()
                            .name(format!("selfplay-{}", first_index + k + 1))
                            .spawn_scoped(scope, move || {
                                let mut e = make();
                                shard.run(&mut e, quota)
                            })
                            .expect("the system starts a self-play thread")
                    })
                    .collect();
                let mut e = make();
                results.push(first.run(&mut e, share(first_index)));
                for h in handles {
                    match h.join() {
                        Ok(r) => results.push(r),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
            });
        }
        let mut stats = SelfPlayStats::default();
        let mut samples = Vec::new();
        for (s, x) in results {
            stats.merge(&s);
            samples.extend(x);
        }
        (stats, samples)
    }

    /// [`SelfPlay::run`] when `eval_batch` is 0 (an evaluator per thread, made by
    /// `make_evaluator`), [`SelfPlay::run_gathered`] with up to two evaluator threads otherwise:
    /// `selfplay.eval_batch` of the trainer's config.
    pub fn run_with<E, F>(
        &mut self,
        make_evaluator: F,
        eval_batch: usize,
        min_positions: usize,
        buffer: &mut ReplayBuffer,
    ) -> SelfPlayStats
    where
        E: LeafEvaluator,
        F: Fn() -> E + Sync,
    {
        if eval_batch == 0 {
            return self.run(make_evaluator, min_positions, buffer);
        }
        let (stats, samples, _) = self.run_gathered(make_evaluator, 2, eval_batch, min_positions);
        for x in samples {
            buffer.push(x);
        }
        stats
    }

    /// What [`SelfPlay::run_shards`] does for every shard, with the leaves of all of them
    /// gathered into calls of at most `eval_batch` leaves, and every shard searching on a
    /// thread of its own with several batches in flight (see [`crate::search::gather`]): few,
    /// large calls, and no search thread waiting for the evaluator, for an evaluator that pays
    /// per call (a GPU, a Python callable). Each shard's games are split into the fewest groups
    /// (at least 2, the batches it has in flight) whose leaves, a group of every shard
    /// together, fit one call. Up to `evaluators` evaluator threads (at most one a group) each
    /// call an evaluator of `make_evaluator` (the first on the calling thread): with more than
    /// one, calls run at once (a thread-safe Python callable, a GPU's copies beside its work).
    ///
    /// Every shard plays until all have made their share of `min_positions` (so every call
    /// holds the leaves of every shard; a shard done early keeps playing, and its extra
    /// samples are returned too), and all stop after the same round. With an evaluator whose
    /// answer for a position does not depend on the rest of its batch, the games and samples
    /// are the same bit for bit whatever `eval_batch`, `evaluators` and the timing; they
    /// depend on the thread count, as [`SelfPlay::run`]'s do (and differ from its, which stops
    /// each shard at its own share). The counts of calls are the evaluators'.
    pub fn run_gathered<E, F>(
        &mut self,
        make_evaluator: F,
        evaluators: usize,
        eval_batch: usize,
        min_positions: usize,
    ) -> (SelfPlayStats, Vec<Sample>, EvaluatorLoad)
    where
        E: LeafEvaluator,
        F: Fn() -> E + Sync,
    {
        let t = self.shards.len();
        let share = |w: usize| min_positions / t + usize::from(w < min_positions % t);
        let sizes: Vec<usize> = self.shards.iter().map(|s| s.slots.len()).collect();
        let groups = groups_for(&sizes, eval_batch);
        let (search_ends, mut ends) = lines(t, groups);
        // Evaluator thread j serves groups j, j + e, j + 2e, …
        let e = evaluators.clamp(1, groups);
        let mut shares: Vec<Vec<Vec<ServerEnd>>> = (0..e).map(|_| Vec::new()).collect();
        for (g, group) in ends.drain(..).enumerate() {
            shares[g % e].push(group);
        }
        let mut results: Vec<(SelfPlayStats, Vec<Sample>)> = Vec::with_capacity(t);
        let make = &make_evaluator;
        let load = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .shards
                .iter_mut()
                .zip(search_ends)
                .enumerate()
                .map(|(w, (shard, mut line))| {
                    let quota = share(w);
                    std::thread::Builder::new()
                        .name(format!("selfplay-{w}"))
                        .spawn_scoped(scope, move || shard.run_pipelined(&mut line, quota))
                        .expect("the system starts a self-play thread")
                })
                .collect();
            let mut shares = shares.into_iter();
            let mine = shares.next().expect("one evaluator thread at least");
            let others: Vec<_> = shares
                .enumerate()
                .map(|(j, share)| {
                    std::thread::Builder::new()
                        .name(format!("evaluator-{}", j + 1))
                        .spawn_scoped(scope, move || serve(&mut make(), share, eval_batch))
                        .expect("the system starts an evaluator thread")
                })
                .collect();
            let mut load = serve(&mut make(), mine, eval_batch);
            for h in others {
                match h.join() {
                    Ok(l) => load.add(&l),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            for h in handles {
                match h.join() {
                    Ok(r) => results.push(r),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            load
        });
        let mut stats = SelfPlayStats::default();
        let mut samples = Vec::new();
        for (s, x) in results {
            stats.merge(&s);
            samples.extend(x);
        }
        stats.evaluations = load.leaves;
        stats.batches = load.calls;
        stats.max_batch = load.max_call;
        (stats, samples, load)
    }
}

impl Shard {
    fn new(
        rules: Rules,
        settings: SelfPlaySettings,
        concurrent: usize,
        w: u64,
        stride: u64,
    ) -> Shard {
        let mut sp = Shard {
            rules,
            settings,
            slots: Vec::with_capacity(concurrent),
            index: w,
            next_game: w,
            stride,
            rounds: Rounds::default(),
        };
        for _ in 0..concurrent {
            let slot = sp.new_game();
            sp.slots.push(slot);
        }
        sp
    }

    fn new_game(&mut self) -> Slot {
        let game = self.next_game;
        self.next_game += self.stride;
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(self.settings.seed, game));
        let rules = self.rules;
        let (state, history, first) = loop {
            let first = rng.random_range(0..rules.players as usize);
            let mut s = State::initial(&rules, first);
            let first = s.to_move();
            let mut h = History::new();
            h.reset(&s);
            for _ in 0..self.settings.random_opening_plies {
                if s.is_over() {
                    break;
                }
                let mv = random_bit(&mut rng, s.legal_mask(&rules));
                let info = s.apply_unchecked(&rules, mv);
                h.record(&rules, &mut s, &info);
            }
            if !s.is_over() {
                break (s, h, first);
            }
        };
        Slot {
            game,
            first,
            state,
            history,
            rng,
            search: Search::new(rules, self.settings.search),
            searching: false,
            full: false,
            pending: Vec::new(),
        }
    }

    /// Plays until at least `min_positions` new samples are in the returned list (searches in
    /// progress are then dropped; their games go on at the next call).
    fn run(
        &mut self,
        evaluator: &mut dyn LeafEvaluator,
        min_positions: usize,
    ) -> (SelfPlayStats, Vec<Sample>) {
        let mut stats = SelfPlayStats::default();
        let mut buffer = Vec::new();
        let mut rounds = std::mem::take(&mut self.rounds);
        while (stats.positions as usize) < min_positions
            && !self.slots.is_empty()
            && !evaluator.stopped()
        {
            let mut games = Games {
                shard: self,
                buffer: &mut buffer,
                stats: &mut stats,
            };
            // Every game gives a leaf each round: the batch is the shard's games.
            let n = rounds.round(&mut games, evaluator, usize::MAX);
            stats.evaluations += n as u64;
            stats.batches += 1;
            stats.max_batch = stats.max_batch.max(n);
        }
        self.rounds = rounds;
        for slot in &mut self.slots {
            slot.searching = false;
        }
        (stats, buffer)
    }

    /// [`Shard::run`] with its leaves evaluated over `line`, two halves of its games in flight,
    /// until every shard has made its share (`min_positions` is this shard's).
    fn run_pipelined(
        &mut self,
        line: &mut Line,
        min_positions: usize,
    ) -> (SelfPlayStats, Vec<Sample>) {
        let mut stats = SelfPlayStats::default();
        let mut buffer = Vec::new();
        if min_positions > 0 && !self.slots.is_empty() {
            let mut games = Games {
                shard: self,
                buffer: &mut buffer,
                stats: &mut stats,
            };
            pipelined_rounds(&mut games, line, |g| {
                g.stats.positions as usize >= min_positions
            });
        }
        for slot in &mut self.slots {
            slot.searching = false;
        }
        (stats, buffer)
    }

    fn temperature(&self, state: &State) -> f32 {
        if state.ply() < self.settings.temperature_plies {
            self.settings.temperature
        } else {
            self.settings.temperature_final
        }
    }

    fn begin_search(&mut self, i: usize) {
        let t = self.temperature(&self.slots[i].state);
        let st = &self.settings;
        let (p, sims, fast) = (st.full_search_prob, st.sims, st.fast_sims);
        let slot = &mut self.slots[i];
        slot.full = p >= 1.0 || slot.rng.random_bool(p);
        let budget = if slot.full { sims } else { fast };
        let noise = st.search.policy.self_play_noise(slot.full, t);
        slot.search.start(slot.state, budget, noise);
        slot.searching = true;
    }

    fn play_move(&mut self, i: usize, buffer: &mut Vec<Sample>, stats: &mut SelfPlayStats) {
        let t = self.temperature(&self.slots[i].state);
        let rules = self.rules;
        let h = rules.houses as usize;
        let policy = self.settings.search.policy;
        let slot = &mut self.slots[i];
        let res = slot.search.result();
        let action = policy.self_play_move(&res, h, t, &mut slot.rng);
        if slot.full {
            slot.pending.push(Pending {
                state: slot.state,
                policy: res.policy,
                search_value: res.value,
            });
        }
        let info = slot.state.apply_unchecked(&rules, action);
        slot.history.record(&rules, &mut slot.state, &info);
        slot.searching = false;
        stats.moves += 1;
        let exact = match &self.settings.endgame {
            Some(t) if !slot.state.is_over() => t.final_scores(&slot.state),
            _ => None,
        };
        if slot.state.is_over() || exact.is_some() {
            let fresh = self.new_game();
            let done = std::mem::replace(&mut self.slots[i], fresh);
            self.finish_game(done, exact, buffer, stats);
        }
    }

    /// Turns a finished game into samples: `exact` holds the final stores when the endgame
    /// tables ended it (the state is then the entry position, which becomes a sample too when
    /// the tables give policies), otherwise the game ended by the rules.
    fn finish_game(
        &self,
        mut slot: Slot,
        exact: Option<[u8; MAX_PLAYERS]>,
        buffer: &mut Vec<Sample>,
        stats: &mut SelfPlayStats,
    ) {
        let rules = &self.rules;
        let p = rules.players as usize;
        let (z, scores) = match exact {
            Some(scores) => {
                let tables = self.settings.endgame.as_ref();
                let tables = tables.expect("tables ended the game");
                let keep = self.settings.full_search_prob;
                let added =
                    tables.extra_samples(rules, &slot.state, &slot.history, &mut slot.rng, keep);
                let z = self.settings.search.utility.values(&scores[..p]);
                // Their value targets are exact, whatever `search_value_mix`.
                for (state, policy) in added {
                    slot.pending.push(Pending {
                        state,
                        policy,
                        search_value: z,
                    });
                }
                stats.tablebase_ends += 1;
                (z, scores)
            }
            None => {
                let scores = *slot.state.scores();
                (self.settings.search.utility.values(&scores[..p]), scores)
            }
        };
        let total = rules.total_seeds().max(1) as f32;
        let mix = self.settings.search_value_mix;
        for s in &slot.pending {
            let (value, score) = targets(&s.state, p, &z, &s.search_value, mix, &scores, total);
            buffer.push(Sample {
                state: s.state,
                policy: s.policy,
                value,
                score,
            });
        }
        let mut drawn = 0;
        if let Some(tables) = self.settings.endgame.as_ref().filter(|t| t.random() > 0) {
            for (state, policy, finals) in
                tables.random_samples(rules, tables.random(), &mut slot.rng)
            {
                // Each has its own exact result, whatever `search_value_mix`.
                let z = self.settings.search.utility.values(&finals[..p]);
                let (value, score) = targets(&state, p, &z, &z, 0.0, &finals, total);
                buffer.push(Sample {
                    state,
                    policy,
                    value,
                    score,
                });
                drawn += 1;
            }
        }
        stats.games += 1;
        stats.positions += slot.pending.len() as u64 + drawn;
        stats.plies += slot.state.ply() as u64;
        // The statistics count the rules' results, whatever the utility learnt.
        let z = crate::state::outcome_from_scores(&scores[..p]);
        if z[slot.first] > 0.0 {
            stats.first_player_wins += 1;
        }
        if z[..p].iter().all(|&v| v <= 0.0) && z[..p].contains(&0.0) {
            stats.draws += 1;
        }
        if slot.state.status() == crate::state::Status::Truncated {
            stats.truncated += 1;
        }
    }
}

/// A shard's games as the trees of a [`Forest`]: a game whose search is complete plays its
/// move (a finished game's samples go to `buffer`) and starts the next search in the same round.
struct Games<'a> {
    shard: &'a mut Shard,
    buffer: &'a mut Vec<Sample>,
    stats: &'a mut SelfPlayStats,
}

impl Forest for Games<'_> {
    fn trees(&self) -> usize {
        self.shard.slots.len()
    }

    fn next_leaf(&mut self, i: usize) -> Option<State> {
        loop {
            if !self.shard.slots[i].searching {
                self.shard.begin_search(i);
            }
            let slot = &mut self.shard.slots[i];
            match slot.search.next_leaf(&mut slot.rng) {
                Some(s) => return Some(s),
                None => self.shard.play_move(i, self.buffer, self.stats),
            }
        }
    }

    fn deliver(&mut self, i: usize, evaluation: &Evaluation) {
        let slot = &mut self.shard.slots[i];
        slot.search.deliver(evaluation, &mut slot.rng);
    }
}

/// The most groups (batches in flight) a shard's games are split into.
const MAX_GROUPS: usize = 16;

/// How many groups each shard's games are split into for calls of at most `eval_batch` leaves
/// (a group of every shard makes one call): the fewest, at least 2 (two batches in flight),
/// at most [`MAX_GROUPS`], whose groups hold at most `eval_batch` leaves together.
fn groups_for(shard_games: &[usize], eval_batch: usize) -> usize {
    (2..=MAX_GROUPS)
        .find(|&k| shard_games.iter().map(|&n| n.div_ceil(k)).sum::<usize>() <= eval_batch)
        .unwrap_or(MAX_GROUPS)
}

/// The value targets (every player, `state`'s mover first) and the score target of a position
/// of a game that ended with the stores `scores` (outcome `z`, one per player), the value mixed
/// by `mix` with the search's `search_value`; `total` is the seeds in play.
fn targets(
    state: &State,
    p: usize,
    z: &[f32; MAX_PLAYERS],
    search_value: &[f32; MAX_PLAYERS],
    mix: f32,
    scores: &[u8; MAX_PLAYERS],
    total: f32,
) -> ([f32; MAX_PLAYERS], f32) {
    let m = state.to_move();
    let mut value = [0f32; MAX_PLAYERS];
    for (k, v) in value.iter_mut().enumerate().take(p) {
        let q = (m + k) % p;
        *v = (1.0 - mix) * z[q] + mix * search_value[q];
    }
    let others: f32 = (0..p)
        .filter(|&q| q != m)
        .map(|q| scores[q] as f32)
        .sum::<f32>()
        / (p - 1).max(1) as f32;
    (
        value,
        ((scores[m] as f32 - others) / total).clamp(-1.0, 1.0),
    )
}

/// Plays one game to the end with `evaluator` choosing every move by a search of `sims`
/// simulations (no noise, best move), starting from `state`; returns the final position.
/// For tests and demonstrations.
pub fn play_out(
    rules: &Rules,
    settings: SearchSettings,
    evaluator: &mut dyn LeafEvaluator,
    mut state: State,
    sims: u32,
) -> State {
    let mut search = Search::new(*rules, settings);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut history = History::new();
    history.reset(&state);
    while !state.is_over() {
        search.start(state, sims, None);
        search.run(evaluator, &mut rng, None);
        let info = state.apply_unchecked(rules, search.result().action);
        history.record(rules, &mut state, &info);
    }
    state
}
