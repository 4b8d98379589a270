//! The searching agents keep to their move time and end at once when their stop signal is
//! raised, even where one playout or one iteration would run for minutes: a game that never
//! ends (no capture wins, no repetition ending, no ply limit). The margins are loose for a
//! loaded 2-core machine.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use awale::agents::{build_agent, Agent, PerfectAgent, StopSignal, Turn};
use awale::tablebase::Tablebase;
use awale::{Rules, State};

/// Rules under which a game never ends on its own.
fn endless() -> Rules {
    "abapa:capture=200-200,cycle=ignore,max_plies=4294967295"
        .parse()
        .unwrap()
}

/// Asks `agent` for a move from the start position and checks that it is legal; the time taken.
fn timed_move(agent: &mut dyn Agent, rules: &Rules) -> Duration {
    let s = State::initial(rules, 0);
    let t = Instant::now();
    let mv = agent.select(&Turn::new(rules, &s)).unwrap();
    let elapsed = t.elapsed();
    assert!(s.legal_mask(rules) >> mv & 1 == 1, "{mv} is not legal");
    elapsed
}

/// Rules as [`endless`] that endgame tables cover (they need a cycle rule).
fn tabled() -> Rules {
    "abapa:capture=200-200,max_plies=4294967295"
        .parse()
        .unwrap()
}

/// A perfect agent on a small table of `rules`, searching with alpha-beta outside it.
fn perfect(rules: &Rules, move_time_ms: u64) -> PerfectAgent {
    let table = Arc::new(Tablebase::build(rules, 4, 1, &|_| {}).unwrap());
    PerfectAgent::new(table, rules, 20, 0)
        .unwrap()
        .with_fallback_move_time_ms(move_time_ms)
}

const LIMITED: [&str; 3] = [
    "mcts:sims=1,playout_plies=1000000000,move_time_ms=200",
    "mcts:expand=child,sims=1,playout_plies=1000000000,move_time_ms=200",
    "alphabeta:depth=40,move_time_ms=200",
];

#[test]
fn every_searching_agent_keeps_to_its_move_time() {
    let rules = endless();
    let limit = Duration::from_millis(200 + 250);
    for spec in LIMITED {
        let mut agent = build_agent(spec, &rules).unwrap();
        let t = timed_move(&mut agent, &rules);
        assert!(t < limit, "{spec}: {t:?}");
    }
    let mut agent = perfect(&tabled(), 200);
    let t = timed_move(&mut agent, &tabled());
    assert!(
        t < limit,
        "perfect:fallback_depth=20,move_time_ms=200: {t:?}"
    );
    // The option as a spec.
    let agent = build_agent(
        "perfect:fallback_depth=3,move_time_ms=200,dir=/nonexistent",
        &rules,
    );
    let e = agent.err().unwrap().to_string();
    assert!(!e.contains("unknown option"), "{e}");
}

/// Raises a stop signal handed to `agent` after 100 ms and checks that the move comes soon
/// after.
fn stopped_from_outside(mut agent: Box<dyn Agent>, rules: Rules, what: &str) {
    let stop = StopSignal::new();
    agent.set_stop(stop.clone());
    let thinker = thread::spawn(move || {
        let mut agent = agent;
        let s = State::initial(&rules, 0);
        let mv = agent.select(&Turn::new(&rules, &s)).unwrap();
        assert!(s.legal_mask(&rules) >> mv & 1 == 1, "{mv} is not legal");
        Instant::now()
    });
    thread::sleep(Duration::from_millis(100));
    let stopped_at = Instant::now();
    stop.stop();
    let done = thinker.join().unwrap();
    let late = done.saturating_duration_since(stopped_at);
    assert!(
        late < Duration::from_millis(150),
        "{what}: {late:?} after the stop"
    );
}

const UNLIMITED: [&str; 4] = [
    "mcts:sims=100000000",
    "mcts:expand=child,sims=100000000",
    "mcts:sims=2,playout_plies=1000000000",
    "alphabeta:depth=40",
];

#[test]
fn a_stop_signal_ends_the_search_at_once() {
    let rules = endless();
    for spec in UNLIMITED {
        stopped_from_outside(build_agent(spec, &rules).unwrap(), rules, spec);
    }
    // Through another display name (the registry's wrapper forwards the signal).
    let spec = "mcts:expand=child,sims=100000000,name=slow";
    stopped_from_outside(build_agent(spec, &rules).unwrap(), rules, spec);
    stopped_from_outside(
        Box::new(perfect(&tabled(), 0)),
        tabled(),
        "perfect:fallback_depth=20",
    );
}

#[test]
fn a_signal_raised_before_the_move_still_gives_a_legal_move() {
    let rules = endless();
    let stop = StopSignal::new();
    stop.stop();
    let named = ["alphabeta:depth=40,name=deep", "random", "greedy"];
    for spec in UNLIMITED.iter().chain(&named) {
        let mut agent = build_agent(spec, &rules).unwrap();
        agent.set_stop(stop.clone());
        let t = timed_move(&mut agent, &rules);
        assert!(t < Duration::from_millis(250), "{spec}: {t:?}");
        // The search ran its first step and nothing more.
        let thoughts = agent.thoughts();
        assert_eq!(
            thoughts.is_some(),
            !spec.starts_with('r') && !spec.starts_with('g')
        );
        if let Some(thoughts) = thoughts {
            assert!(thoughts.nodes.unwrap_or(0) <= 100, "{spec}: {thoughts:?}");
        }
    }
    let mut agent = perfect(&tabled(), 0);
    agent.set_stop(stop.clone());
    assert!(timed_move(&mut agent, &tabled()) < Duration::from_millis(250));
    assert_eq!(agent.thoughts().unwrap().depth, Some(1));
}

#[test]
fn a_stop_signal_is_shared_by_its_clones() {
    let a = StopSignal::new();
    let b = a.clone();
    assert!(!a.is_stopped() && !b.is_stopped());
    b.stop();
    assert!(a.is_stopped() && b.is_stopped());
    assert!(!StopSignal::default().is_stopped());
}
