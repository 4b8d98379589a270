//! The `awale` command-line tool: one binary, one subcommand per job. The subcommands live in
//! the library (`awale::cli`, feature `cli`) so that the Python wheel's `awale` command runs the
//! same code, and exits with the same status (`awale::cli::main`).

fn main() {
    std::process::exit(awale::cli::main(std::env::args_os()));
}
