//! The options every command that plays games between agents shares (`awale tournament`,
//! `awale match`, `awale ladder`): openings, ply limit, seed, threads, resume in parts, shards,
//! progress bar. They fill the one [`GameRunConfig`] the tournament, the match and the ladder
//! hold, whose defaults they show.

use awale::tournament::GameRunConfig;

/// The game run's defaults (`games` aside, which each command sets).
fn defaults() -> GameRunConfig {
    GameRunConfig::default()
}

/// Options of the games of a tournament, match or ladder.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// Random plies of each opening.
    #[arg(long, default_value_t = defaults().openings, value_name = "K")]
    pub openings: u32,
    /// Cut games off after this many plies, adjudicated by the stores (0 = the rules' limit).
    #[arg(long, default_value_t = defaults().max_plies, value_name = "N")]
    pub max_plies: u32,
    /// The seed (the same seed plays the same games).
    #[arg(long, default_value_t = defaults().seed, value_name = "S")]
    pub seed: u64,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = defaults().threads, value_name = "T")]
    pub threads: usize,
    /// Play at most N new games in this run (resume later with the same command).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Play only shard K of N (the games whose index is K modulo N), e.g. one per machine;
    /// copy every shard's games.jsonl into one folder (`cat`) and run the command there
    /// without --shard: it loads them all and writes the whole results.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

impl GameArgs {
    /// The game run these options ask for, `games` games per pairing (each command has its own
    /// `--games` and default).
    pub fn run(&self, games: usize) -> GameRunConfig {
        GameRunConfig {
            games,
            openings: self.openings,
            max_plies: self.max_plies,
            seed: self.seed,
            threads: self.threads,
            game_limit: self.limit,
            shard: self.shard,
        }
    }
}

/// `K/N` with `K < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("'{text}': write the shard as K/N, e.g. 0/4"))?;
    let k: usize = k.trim().parse().map_err(|e| format!("'{text}': {e}"))?;
    let n: usize = n.trim().parse().map_err(|e| format!("'{text}': {e}"))?;
    if n == 0 || k >= n {
        return Err(format!("'{text}': K must be 0 to N-1 and N at least 1"));
    }
    Ok((k, n))
}
