//! The `awale` command-line tool: one binary, one subcommand per job. The subcommands live in
//! the library (`awale::cli`, feature `cli`) so that the Python wheel's `awale` command runs the
//! same code, and exits with the same status (`awale::cli::main`).

fn main() {
    // This process is the binary's own: every child it has is an engine or was started by one,
    // so it may reap what engines leave behind (docs/engines.md, "Processes").
    awale::protocol::referee::become_subreaper();
    std::process::exit(awale::cli::main(std::env::args_os()));
}
