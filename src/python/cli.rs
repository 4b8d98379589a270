//! `awale._core.main`: the `awale` command line inside the extension (cargo feature `cli`), so
//! that the wheel's `awale` console script and `python -m awale` run the very code of the Rust
//! binary (every subcommand except `train`, which needs the `train` feature).

use pyo3::prelude::*;

/// Runs the `awale` command line on `argv`, the arguments after the program name (as in
/// `sys.argv[1:]`), and returns the exit status the binary would exit with: 0 on success,
/// clap's status for `--help`/`--version` (0) and usage errors (2), 2 when a subcommand fails
/// (its message is printed on stderr as `error: ...`), 141 when stdout is closed under it (`awale
/// rules | head -1`: quietly, as `cat`). Output goes to the process's stdout and stderr. The GIL
/// is released while the command runs.
#[cfg(feature = "cli")]
#[pyfunction]
#[pyo3(signature = (argv))]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(move || crate::cli::main(std::iter::once("awale".to_string()).chain(argv)))
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
