//! `awale serve`: a local web page to play any preset against any agents, watch agents play,
//! and replay game records and tournament files; and the JSON API under it ([`api`]).
//!
//! The page (`page.html`, compiled into the binary) needs nothing from the web: it draws the
//! board as SVG and talks to the API. Every rule stays in the engine: the server sends the
//! position, the legal moves and the result; the page only draws them.

mod api;
mod error;
mod games;
mod replay;
mod session;
mod thinking;
mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const AFTER_HELP: &str = "\
The page: choose the rules and who sits at each seat (a person, or any agent spec:
`alphabeta:depth=8`, `mcts:sims=2000`, `perfect`, `nn:path=...`), then click a house to move.
After each agent move the page shows what the agent found (its evaluation, the visits of each
move for tree searches, the endgame table's value with --tablebase); `hint` asks alpha-beta.
`Replay` loads a game record (`awale play --record`) or a tournament's games.jsonl and steps
through it move by move.

The API (JSON; errors are 4xx with {\"error\": reason}):
  GET    /api/presets                  the rule presets
  GET    /api/agents                   the agent kinds and their options
  POST   /api/games                    {\"rules\": \"abapa\", \"seats\": [\"human\", \"alphabeta:depth=4\"]}
  GET    /api/games/ID                 the position, legal moves, result, last move
  POST   /api/games/ID/move            {\"house\": 2}   (0-based in the mover's row, or \"C\")
  POST   /api/games/ID/agent-move      the seated agent moves (202 while it still thinks)
  POST   /api/games/ID/undo            back to the last person's turn
  GET    /api/games/ID/hint            alpha-beta's (or MCTS's) advice, the table's values
  DELETE /api/games/ID
  POST   /api/replay                   body: a game record, its JSON, or games.jsonl

Examples:
  awale serve                          # http://127.0.0.1:8080
  awale serve --port 0                 # any free port (printed)
  awale serve --tablebase tablebases --move-time-ms 2000";

/// Arguments of `awale serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The port (0: any free port; the address is printed on the first line).
    #[arg(long, default_value_t = 8080, value_name = "P")]
    pub port: u16,
    /// The address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub host: std::net::IpAddr,
    /// Time limit of an agent's move in milliseconds: passed to agents that take `time_ms`
    /// (alpha-beta, MCTS) unless their spec sets it; a request waits at most this long plus a
    /// second, then answers 202 and the page asks again.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub move_time_ms: u64,
    /// Endgame tables (`awale tablebase build`): the `perfect` agent, and the table's values in
    /// hints and agents' thoughts.
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
    /// Games kept in memory; the least recently used is dropped beyond it.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_games: usize,
}

/// Runs the server until the process is stopped.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.max_games == 0 {
        return Err("--max-games must be at least 1".into());
    }
    let state = Arc::new(session::AppState::new(
        awale::agents::Registry::available(),
        args.tablebase.clone(),
        Duration::from_millis(args.move_time_ms),
        args.max_games,
    ));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.host, args.port)).await?;
        let addr = listener.local_addr()?;
        // The first line is read by scripts and tests (`--port 0`).
        println!("awale serve: listening on http://{addr}/");
        use std::io::Write;
        std::io::stdout().flush()?;
        axum::serve(listener, api::router(state)).await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
