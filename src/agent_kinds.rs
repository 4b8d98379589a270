//! The agent kinds of this build, in one place: what the command line, `awale serve` and the
//! Python module offer. It sits with the bindings, above the trainer, because `nn` comes from
//! the trainer when the build has it.

/// Every agent kind this build knows: the built-in ones ([`crate::agents::Registry::builtin`]), and
/// `nn` (a trained network) in a build with the `train` feature (`awale::train::registry`). Defined
/// once, above the trainer (with the bindings), so that the agents never name the trainer; the
/// command line, `awale serve` and the Python module call it.
///
/// ```
/// let kinds: Vec<String> = awale::agent_kinds::available().entries().iter().map(|e| e.kind.clone()).collect();
/// assert!(kinds.iter().any(|k| k == "alphabeta"));
/// assert_eq!(kinds.iter().any(|k| k == "nn"), cfg!(feature = "train"));
/// ```
pub fn available() -> crate::agents::Registry {
    #[cfg(feature = "train")]
    let registry = crate::train::registry();
    #[cfg(not(feature = "train"))]
    let registry = crate::agents::Registry::builtin();
    registry
}
