//! What the `awale` command writes, and the status it exits with.
//!
//! Every subcommand prints through [`outln!`]/[`out!`], which hand a write error back to the
//! command (`?`) instead of panicking as `println!` does. A reader that goes away (`awale rules
//! | head -1`, `| grep -q`) then ends the command quietly with [`BROKEN_PIPE_STATUS`], the status
//! a shell reports for `cat` or `git` stopped the same way, never with a panic and its
//! backtrace. Notes on stderr go through [`errln!`], which never fails the command.
//! [`main`] is the one entry point of both the binary (`src/main.rs`) and the wheel's `awale`
//! command (`awale._core.main`).

use std::error::Error;
use std::ffi::OsString;
use std::io::{self, Write};

/// The exit status when stdout is closed under the command: 128 + SIGPIPE (13), what a shell
/// reports for a program that the closed pipe stopped.
pub const BROKEN_PIPE_STATUS: i32 = 141;

/// The exit status when a subcommand fails (its message printed on stderr as `error: ...`),
/// and clap's status for a usage error.
pub const FAILURE_STATUS: i32 = 2;

/// `println!` that returns a write error from the enclosing function (`?`) instead of
/// panicking: the function must return a `Result` whose error converts from `io::Error`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        writeln!(::std::io::stdout(), $($arg)*)?
    }};
}

/// `print!` that returns a write error from the enclosing function, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        write!(::std::io::stdout(), $($arg)*)?
    }};
}

/// `eprintln!` that never fails: a note on a closed stderr is dropped, the command goes on.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = writeln!(::std::io::stderr(), $($arg)*);
    }};
}

/// Whether `error`, or an error it was caused by, is a write to a closed pipe.
pub fn is_broken_pipe(error: &(dyn Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
        {
            return true;
        }
        next = e.source();
    }
    false
}

/// The exit status of a finished subcommand: 0 on success, [`BROKEN_PIPE_STATUS`] (nothing
/// printed) when its reader went away, else [`FAILURE_STATUS`] after `error: ...` on stderr.
pub fn exit_status(result: Result<(), Box<dyn Error>>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) if is_broken_pipe(e.as_ref()) => BROKEN_PIPE_STATUS,
        Err(e) => {
            errln!("error: {e}");
            FAILURE_STATUS
        }
    }
}

/// Runs the `awale` command line on `args` (the program name first, as in `std::env::args_os`)
/// and returns the status to exit with: clap's for `--help`/`--version` (0, on stdout) and for
/// usage errors (2, on stderr), else [`exit_status`] of the subcommand. The standard streams
/// are flushed before it returns.
pub fn main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::Parser;
    let status = match super::Cli::try_parse_from(args) {
        Err(e) => {
            let _ = e.print();
            e.exit_code()
        }
        Ok(cli) => exit_status(super::run(cli)),
    };
    let flushed = io::stdout().flush();
    let _ = io::stderr().flush();
    match flushed {
        Err(e) if status == 0 && e.kind() == io::ErrorKind::BrokenPipe => BROKEN_PIPE_STATUS,
        _ => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_found_through_the_error_chain() {
        #[derive(Debug)]
        struct Wrapper(io::Error);
        impl std::fmt::Display for Wrapper {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "writing the table")
            }
        }
        impl Error for Wrapper {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&pipe()));
        assert!(is_broken_pipe(&Wrapper(pipe())));
        assert!(!is_broken_pipe(&io::Error::from(io::ErrorKind::NotFound)));
        assert!(!is_broken_pipe(&Wrapper(io::Error::from(
            io::ErrorKind::NotFound
        ))));
        assert_eq!(exit_status(Err(Box::new(pipe()))), BROKEN_PIPE_STATUS);
        assert_eq!(exit_status(Err("bad spec".into())), FAILURE_STATUS);
        assert_eq!(exit_status(Ok(())), 0);
    }
}
