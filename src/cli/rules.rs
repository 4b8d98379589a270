//! (in progress)

/// Arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> Result<(), Box<dyn std::error::Error>> {
    Err("not implemented yet".into())
}
