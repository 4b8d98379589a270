//! `awale serve`: a local web page to play any preset against any agents, watch agents play,
//! and replay game records and tournament files; and the JSON API under it (`api`).
//!
//! The page (`page.html`, compiled into the binary) needs nothing from the web: it draws the
//! board as SVG and talks to the API. Every rule stays in the engine: the server sends the
//! position, the legal moves and the result; the page only draws them.

mod admission;
mod api;
mod body;
mod conn;
mod error;
mod games;
mod guard;
mod ledger;
mod replay;
mod session;
mod thinking;
mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

const AFTER_HELP: &str = "\
The page: choose the rules and who sits at each seat (a person, or any agent spec:
`alphabeta:depth=8`, `mcts:sims=2000`, `perfect`, `nn:path=NAME`), then click a house to move.
After each agent move the page shows what the agent found (its evaluation, the visits of each
move for tree searches, the endgame table's value with --tablebase); `hint` asks alpha-beta.
`Replay` loads a game record (`awale play --record`) or a tournament's games.jsonl and steps
through it move by move.

Security (docs/play.md, the threat model): clients' agent specs are capped (the flags
--move-time-ms, --max-depth, --max-sims, --max-tt-mb, --memory-mb, --max-thinking); every game
ends within --max-plies; one client address keeps at most --max-client-games games and
--max-client-connections connections (--max-connections in all, --idle-timeout-ms for slow or
idle ones). Clients name files only by name: a network in --networks DIR (`nn:path=NAME`), the server's tables as `tb=server`. Game ids are random.
Requests must name this server as Host (localhost, an IP address, or --allow-host) and come
from its own page (Origin). With --host other than loopback every request needs the token
printed at start (or --token), unless --no-auth.

The API (JSON; errors are 4xx with {\"error\": reason}):
  GET    /api/openapi.json             this API's OpenAPI document
  GET    /api/presets                  the rule presets
  GET    /api/agents                   the agent kinds and options, networks, limits
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
  awale serve --tablebase tablebases --move-time-ms 2000
  awale serve --networks runs/abapa   # `nn:path=checkpoint.ckpt` plays runs/abapa's network
  awale serve --host 0.0.0.0 --port 8080   # on the network: prints the address with its token";

/// Arguments of `awale serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The port (0: any free port; the address is printed on the first line).
    #[arg(long, default_value_t = 8080, value_name = "P")]
    pub port: u16,
    /// The address to listen on; the default serves this machine only. Any other address
    /// (`0.0.0.0` for every interface) needs the token (printed at start) unless --no-auth.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub host: std::net::IpAddr,
    /// Time limit of an agent's move in milliseconds: passed to agents that take `move_time_ms`
    /// (alpha-beta, MCTS) unless their spec sets it, and the most a spec may set (0, no limit,
    /// is refused); hints stop at it too. A request waits at most this long plus a second,
    /// then answers 202 and the page asks again.
    #[arg(long, default_value_t = admission::DEFAULT_MOVE_TIME_MS, value_name = "MS")]
    pub move_time_ms: u64,
    /// Endgame tables (`awale tablebase build`): the `perfect` agent, `tb=server` for
    /// alpha-beta and networks, and the table's values in hints and agents' thoughts.
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
    /// Networks clients may play (`nn:path=NAME`, NAME a file directly in DIR; GET /api/agents
    /// lists them). Without it, `nn` seats are refused.
    #[arg(long, value_name = "DIR")]
    pub networks: Option<PathBuf>,
    /// Games kept in memory; beyond it the least recently used game of the client holding
    /// the most games is dropped.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_games: usize,
    /// Games one client (address) keeps at once; its own least recently used goes beyond it.
    #[arg(long, default_value_t = admission::DEFAULT_CLIENT_GAMES, value_name = "N")]
    pub max_client_games: usize,
    /// Longest game in plies: a rules spec without `max_plies` gets this one, a larger one is
    /// refused; replays of longer games too.
    #[arg(long, default_value_t = admission::DEFAULT_PLIES, value_name = "N")]
    pub max_plies: u32,
    /// Connections open at once, all clients together. At the cap, an idle connection of the
    /// client holding the most is closed for a client holding fewer; otherwise 503.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_connections: usize,
    /// Connections open at once from one client address; more get 503.
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub max_client_connections: usize,
    /// Most time for a request's headers to arrive, for an idle connection to start its next
    /// request, and for a stalled answer to be read again; then the connection is closed.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub idle_timeout_ms: u64,
    /// Deepest search a client may ask for (`alphabeta:depth`, `perfect:fallback_depth`).
    #[arg(long, default_value_t = admission::DEFAULT_DEPTH, value_name = "D")]
    pub max_depth: u64,
    /// Most simulations per move a client may ask for (`mcts:sims`, `nn:sims`).
    #[arg(long, default_value_t = admission::DEFAULT_SIMS, value_name = "N")]
    pub max_sims: u64,
    /// Largest transposition table of one agent, in MiB (`alphabeta:tt_mb`; the default is 16).
    #[arg(long, default_value_t = admission::DEFAULT_TT_MB, value_name = "MIB")]
    pub max_tt_mb: u64,
    /// Memory the agents of all live games (their transposition tables, search trees at their
    /// whole budget, networks) and the open endgame tables may hold together, in MiB: the
    /// least recently used games of the client holding the most are dropped to stay under it.
    #[arg(long, default_value_t = admission::DEFAULT_MEMORY_MB, value_name = "MIB")]
    pub memory_mb: u64,
    /// Agents and hints thinking at once (0: one per core); more answer 503.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_thinking: usize,
    /// The token clients must send (default: a random one when --host is not loopback).
    #[arg(long, value_name = "TOKEN", conflicts_with = "no_auth")]
    pub token: Option<String>,
    /// Serve a non-loopback --host without a token (anyone who reaches the port plays).
    #[arg(long)]
    pub no_auth: bool,
    /// A host name the page may be reached by, besides localhost and IP addresses (the Host
    /// check against DNS rebinding; not needed with a token). Repeatable.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
}

/// Runs the server until the process is stopped.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.max_games == 0 {
        return Err("--max-games must be at least 1".into());
    }
    if args.move_time_ms == 0 {
        return Err("--move-time-ms must be at least 1".into());
    }
    for (flag, n) in [
        ("--max-client-games", args.max_client_games),
        ("--max-plies", args.max_plies as usize),
        ("--max-connections", args.max_connections),
        ("--max-client-connections", args.max_client_connections),
        ("--idle-timeout-ms", args.idle_timeout_ms as usize),
    ] {
        if n == 0 {
            return Err(format!("{flag} must be at least 1").into());
        }
    }
    // The folders as absolute paths with no link or `..` in them: the paths the server's
    // errors would name, scrubbed from every answer.
    let networks = args
        .networks
        .as_deref()
        .map(|d| admission::check_folder("--networks", d))
        .transpose()?;
    let tablebase = args
        .tablebase
        .as_deref()
        .map(|d| admission::check_folder("--tablebase", d))
        .transpose()?;
    if args.token.as_ref().is_some_and(|t| t.len() < 16) {
        return Err("--token must have at least 16 characters".into());
    }
    let limits = admission::Limits {
        move_time_ms: args.move_time_ms,
        depth: args.max_depth,
        sims: args.max_sims,
        tt_mb: args.max_tt_mb,
        memory_mb: args.memory_mb,
        thinking: match args.max_thinking {
            0 => admission::default_thinking(),
            n => n,
        },
        plies: args.max_plies,
        client_games: args.max_client_games,
    };
    let admission = admission::Admission {
        limits,
        networks,
        tablebase,
    };
    let connections = conn::ConnLimits {
        total: args.max_connections,
        per_client: args.max_client_connections,
        idle: std::time::Duration::from_millis(args.idle_timeout_ms),
    };
    let access = Arc::new(guard::Access::new(
        args.host,
        args.token.clone(),
        args.no_auth,
        args.allow_hosts.clone(),
    ));
    let token = access.token.clone();
    // No client may start a program: admission refuses every kind that runs one (403), and the
    // listing leaves them out.
    let state = Arc::new(session::AppState::new(
        awale::agent_kinds::available(),
        admission,
        args.max_games,
        connections.idle,
    ));
    return_large_blocks();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.host, args.port)).await?;
        let addr = listener.local_addr()?;
        // The first line is read by scripts and tests (`--port 0`). A closed stdout (a
        // script that read that line and went) must not stop the server: errors are ignored.
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "awale serve: listening on http://{addr}/");
        match &token {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "open http://{addr}/?token={t} (every request needs the token)"
                );
            }
            None if !args.host.is_loopback() => {
                let _ = writeln!(
                    out,
                    "no authentication (--no-auth): anyone who reaches this port can play"
                );
            }
            None => {}
        }
        let _ = out.flush();
        drop(out);
        conn::serve(listener, api::router(state, access), connections).await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}

/// Large blocks (a search tree, a transposition table, a replay's answer) are given back to
/// the system as soon as they are freed: the server's memory follows what it counts against
/// `--memory-mb`, not the most it ever held. (glibc's allocator otherwise raises its threshold
/// for mapping blocks of their own after the first large free, up to 32 MiB, and keeps freed
/// blocks below it in its heaps.)
fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
