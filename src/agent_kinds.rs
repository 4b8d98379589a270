//! The agent kinds of this build, in one place: what the command line, `awale serve` and the
//! Python module offer. It sits with the bindings, above the network room, because `nn` comes
//! from [`crate::network`] when the build has it (feature `train`).

/// Every agent kind this build knows: the built-in ones ([`crate::agents::Registry::builtin`]),
/// `nn` (a trained network) in a build with the `train` feature (`awale::network::registry`), and
/// `engine` (a program in another process, [`crate::protocol::referee`]). Defined
/// once, above the network room (with the bindings), so that the agents never name it; the
/// command line, `awale serve` and the Python module call it.
///
/// ```
/// let kinds: Vec<String> = awale::agent_kinds::available().entries().iter().map(|e| e.kind.clone()).collect();
/// assert!(kinds.iter().any(|k| k == "alphabeta") && kinds.iter().any(|k| k == "engine"));
/// assert_eq!(kinds.iter().any(|k| k == "nn"), cfg!(feature = "train"));
/// ```
pub fn available() -> crate::agents::Registry {
    #[cfg(feature = "train")]
    let mut registry = crate::network::registry();
    #[cfg(not(feature = "train"))]
    let mut registry = crate::agents::Registry::builtin();
    crate::protocol::referee::register(&mut registry);
    registry
}

/// Specs that show the kinds a client of `awale serve` may name, from the quickest to the
/// strongest (`GET /api/agents` lists them; the page offers them).
pub const EXAMPLES: &[&str] = &[
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=8",
    "mcts:sims=2000",
    "perfect",
];
