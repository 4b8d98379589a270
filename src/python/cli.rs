//! `awale._core.main`: the `awale` command line inside the extension (cargo feature `cli`), so
//! that the wheel's `awale` console script and `python -m awale` run the very code of the Rust
//! binary (every subcommand except `train`, which needs the `train` feature).

use pyo3::prelude::*;

/// Runs the `awale` command line on `argv`, the arguments after the program name (as in
/// `sys.argv[1:]`), and returns the exit status the binary would exit with: 0 on success,
/// clap's status for `--help`/`--version` (0) and usage errors (2), 2 when a subcommand fails
/// (its message is printed on stderr as `error: ...`). Output goes to the process's stdout and
/// stderr. The GIL is released while the command runs.
#[cfg(feature = "cli")]
#[pyfunction]
#[pyo3(signature = (argv))]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    use clap::Parser;
    use std::io::Write;

    py.detach(move || {
        let args = std::iter::once("awale".to_string()).chain(argv);
        let code = match crate::cli::Cli::try_parse_from(args) {
            Err(e) => {
                // Help and version go to stdout with status 0, usage errors to stderr with 2.
                let _ = e.print();
                e.exit_code()
            }
            Ok(cli) => match crate::cli::run(cli) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: {e}");
                    2
                }
            },
        };
        // No Rust `main` returns here to flush the standard streams: do it now.
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        code
    })
}

/// Adds `main` to the module when the extension is built with the `cli` feature (the wheel
/// is); does nothing otherwise.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    #[cfg(feature = "cli")]
    m.add_function(wrap_pyfunction!(main, m)?)?;
    #[cfg(not(feature = "cli"))]
    let _ = m;
    Ok(())
}
