//! The `awale` command-line tool: one binary, one subcommand per job. The subcommands live in
//! the library (`awale::cli`, feature `cli`) so that the Python wheel's `awale` command runs the
//! same code.

use awale::cli;
use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
