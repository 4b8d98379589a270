"""What a Python agent costs in a scorecard: games/s of built-in agents and of trivial Python
callables on the same card (abapa, anchors random and greedy, 200 games each), and the time a
call. docs/baselines.md, "A Python agent plays one call at a time".

    python benches/bench_scorecard_python.py [THREADS]   # THREADS: 0 (default) is one per core
"""
import sys
import time

import numpy as np
import awale

PROTO = """version = 1
[[rules]]
rules = "abapa"
seed = 11
openings = 6
games = 200
prior_draws = 1.0
anchors = [{ spec = "random", rating = 0.0 }, { spec = "greedy", rating = 442.3 }]
"""
def first_legal(obs, mask):
    return int(mask.argmax())

rng = np.random.default_rng(0)
def py_random(obs, mask):
    return int(rng.choice(np.flatnonzero(mask)))

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
for name, agent in [("random (built-in)", "random"), ("greedy (built-in)", "greedy"),
                    ("python first-legal", ("first", first_legal)), ("python random", ("pyrandom", py_random))]:
    t = time.perf_counter()
    card = awale.scorecard(agent, rules="abapa", protocol=PROTO, threads=threads)
    dt = time.perf_counter() - t
    print(f"{name:22s} {card.games} games {dt:6.2f} s  {card.games/dt:8.1f} games/s  rating {card.rating:.0f}", flush=True)
calls = 0
def counted(obs, mask):
    global calls
    calls += 1
    return int(mask.argmax())
t = time.perf_counter()
card = awale.scorecard(("counted", counted), rules="abapa", protocol=PROTO, threads=threads)
dt = time.perf_counter() - t
print(f"python first-legal, counted: {calls} calls in {dt:.2f} s: {1e6*dt/calls:.1f} us a call")
