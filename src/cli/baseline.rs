//! `awale baseline`: the networks shipped with awale (list, manifest, export, replay).

use std::path::PathBuf;

use awale::network::baseline::{self, Baseline};
use awale::network::export::write_safetensors;

const AFTER_HELP: &str = "\
Baselines are trained networks built into awale (no download): one per rule set that has a
recipe. Each plays as an agent wherever a spec is accepted, with the search settings of its
manifest unless the spec gives others:

  awale play --rules abapa --agents human,nn:baseline=abapa
  awale tournament --rules wari --agents nn:baseline=wari,alphabeta:depth=8 --games 100
  awale scorecard nn:baseline=abapa,sims=64 --rules abapa

A family name (abapa) means its latest version; a version (abapa-v1) stays loadable when a
stronger one ships, so that a published result can be reproduced. Each manifest records the
recipe, seed, commit, machine, wall time, iterations and positions of the run that made it, the
SHA-256 of the weights and the measured strength; `replay` runs the recipe's first iterations
again and checks that the network comes out bit for bit as the run's did.

Examples:
  awale baseline list
  awale baseline show abapa
  awale baseline show oware3-v1 --json
  awale baseline export abapa --out abapa.safetensors
  awale baseline replay oware6";

/// Arguments of `awale baseline`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

/// What to do.
#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// List the baselines: name, rules, default search and measured strength.
    List,
    /// Print a baseline's manifest (TOML, or JSON with --json).
    Show {
        /// A family (its latest version) or a version, e.g. abapa or abapa-v1.
        name: String,
        /// Print the manifest as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a baseline's network as safetensors (PyTorch's layout; awale.torch reads it), with
    /// its play settings: the file plays as nn:path=FILE as the baseline does.
    Export {
        /// A family or a version.
        name: String,
        /// The file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Replay the first iterations of the baseline's recipe and compare the network with the
    /// manifest's hash (exit status 1 when they differ).
    Replay {
        /// A family or a version.
        name: String,
    },
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.command {
        Sub::List => {
            outln!(
                "{:<12} {:<7} {:<28} {:>6} {:>7}  strength",
                "name",
                "rules",
                "recipe",
                "sims",
                "search"
            );
            for b in baseline::all() {
                let m = &b.manifest;
                outln!(
                    "{:<12} {:<7} {:<28} {:>6} {:>7}  {}",
                    m.name,
                    m.rules,
                    m.recipe,
                    m.play.sims,
                    m.play.search,
                    strength_line(b)
                );
            }
            outln!("\nplay one: nn:baseline=NAME (the family's latest version, or NAME-vN)");
            Ok(())
        }
        Sub::Show { name, json } => {
            let b = baseline::find(&name)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&b.manifest)?);
            } else {
                out!("{}", toml::to_string(&b.manifest)?);
            }
            Ok(())
        }
        Sub::Export { name, out } => {
            let b = baseline::find(&name)?;
            // The core carries the manifest's play settings: the file plays as the baseline.
            write_safetensors(b.core()?.as_ref(), &out)?;
            outln!(
                "wrote {} ({}): {} network that plays as nn:path={} with {} (as nn:baseline={}); load it in Python with awale.torch.network",
                out.display(),
                b.manifest.name,
                b.manifest.rules,
                out.display(),
                b.manifest.play.describe(),
                b.manifest.name
            );
            Ok(())
        }
        Sub::Replay { name } => {
            let b = baseline::find(&name)?;
            let r = &b.manifest.replay;
            errln!(
                "replaying {} iterations of {} (seed {}, {} threads)...",
                r.iterations,
                b.manifest.recipe,
                b.manifest.seed,
                b.manifest.threads
            );
            let got = awale::train::trainer::replay(&b.recipe()?, r.iterations)?;
            if got == r.params_sha256 {
                outln!(
                    "{}: the first {} iterations replay bit for bit (parameters {})",
                    b.manifest.name,
                    r.iterations,
                    got
                );
                Ok(())
            } else {
                Err(format!(
                    "{}: the replay differs: parameters {got}, the manifest records {}",
                    b.manifest.name, r.params_sha256
                )
                .into())
            }
        }
    }
}

/// The manifest's strength entries in one line.
fn strength_line(b: &Baseline) -> String {
    b.manifest
        .strength
        .iter()
        .map(|s| {
            if b.manifest.rules.starts_with("oware") {
                format!(
                    "{:+.0} [{:+.0}, {:+.0}] vs {}",
                    s.elo, s.elo_lower, s.elo_upper, s.opponent
                )
            } else {
                format!("{:.1}% vs {}", 100.0 * s.score, s.opponent)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
