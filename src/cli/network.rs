//! `awale network`: what a trained network file holds, and its weights out to PyTorch.

use std::path::PathBuf;

use awale::network::export::{header, write_safetensors};
use awale::network::NetCore;

const AFTER_HELP: &str = "\
A network file is a checkpoint of `awale train` (RUN/checkpoint.ckpt), a generation
(RUN/generations/gen-NNNNNN.ckpt) or a safetensors network written by `awale network export`
(or by awale.torch.save after fine-tuning in PyTorch); each plays as nn:path=FILE.

`export` writes safetensors in PyTorch's nn.Linear layout (trunk.K.weight [out, in],
trunk.K.bias, policy.*, value.*, score.*) with a JSON header (rules, encoding, shape, input
scales) and the training config in its metadata: awale.torch.network(FILE) builds the module in
Python. The input, outputs and encodings are specified in docs/observations.md. A network that
has play settings (a baseline: `awale baseline export`) carries them too, so the file plays as
the baseline does; `info` shows how nn:path=FILE plays (a file without them: 64 simulations and
the config's play_kind).

Examples:
  awale network info runs/abapa/checkpoint.ckpt
  awale network export runs/abapa/checkpoint.ckpt --out abapa.safetensors";

/// Arguments of `awale network`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

/// What to do with the network.
#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Print the network's rules, encoding, shape, how it plays as nn:path=FILE (its play
    /// settings), its self-play search, input scales and the SHA-256 of its parameters (JSON with
    /// --json).
    Info {
        /// The network file (checkpoint, generation or safetensors).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print the header as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the network as safetensors for PyTorch (awale.torch.network reads it).
    Export {
        /// The network file (checkpoint, generation or safetensors).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The safetensors file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.command {
        Sub::Info { file, json } => {
            let core = NetCore::load(&file)?;
            let h = header(&core);
            let params_sha256 = awale::network::baseline::params_sha256(&core);
            let play = core.play();
            if json {
                let mut v = serde_json::to_value(&h)?;
                v["params_sha256"] = params_sha256.into();
                // How `nn:path=FILE` plays it by default, and whether the file says so.
                v["play"] = serde_json::to_value(play)?;
                v["play"]["from_file"] = core.play_settings.is_some().into();
                outln!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                let params: usize = core.net.param_values().len();
                outln!("{}", file.display());
                outln!("  rules     {}", h.rules);
                outln!("  encoding  {} ({} inputs)", h.encoding, h.input);
                outln!(
                    "  shape     {} -> {:?} -> {} logits + {} value(s) + score ({params} parameters)",
                    h.input, h.hidden, h.actions, h.values
                );
                let source = if core.play_settings.is_some() {
                    "the file's play settings"
                } else {
                    "defaults: the file has no play settings"
                };
                outln!("  play      {} ({source})", play.describe());
                outln!("  training  {} search", core.config.search.kind);
                outln!("  params    sha256 {params_sha256}");
            }
            Ok(())
        }
        Sub::Export { file, out } => {
            let core = NetCore::load(&file)?;
            write_safetensors(&core, &out)?;
            let bytes = std::fs::metadata(&out)?.len();
            outln!(
                "wrote {} ({bytes} bytes): {} {} -> {:?}; load it in Python with awale.torch.network",
                out.display(),
                core.rules,
                core.encoding,
                core.config.network.hidden
            );
            Ok(())
        }
    }
}
