"""What a Python agent costs in a scorecard: games/s of built-in agents and of trivial Python
agents in each form on the same card (abapa, anchors random and greedy, 200 games each), and the
time a call. docs/baselines.md, "A Python agent plays one call at a time"; docs/performance.md.

    python benches/bench_scorecard_python.py [THREADS]   # THREADS: 0 (default) is one per core
"""
import sys
import time
import warnings

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


class Counted:
    """Counts the calls of the agent it wraps (the forms below all play the first legal move)."""

    calls = 0


def first_legal(state):                     # a function of the state
    Counted.calls += 1
    return state.legal_moves()[0]


class FirstLegal:                            # an object with select(state)
    name = "first-select"

    def select(self, state):
        Counted.calls += 1
        return state.legal_moves()[0]


def first_legal_obs(obs, mask):              # a policy on observations (and the deprecated form)
    Counted.calls += 1
    return int(mask.argmax())


rng = np.random.default_rng(0)


def py_random(state):                        # a random legal move, numpy's generator
    Counted.calls += 1
    return int(rng.choice(state.legal_moves()))


threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
warnings.simplefilter("ignore", DeprecationWarning)
print(f"threads={threads}")
for name, agent in [
    ("random (built-in)", "random"),
    ("greedy (built-in)", "greedy"),
    ("function of the state", ("first", first_legal)),
    ("object with select", FirstLegal()),
    ("ObservationAgent", awale.ObservationAgent(first_legal_obs, name="first-obs")),
    ("(obs, mask), deprecated", ("first-old", first_legal_obs)),
    ("random legal (numpy)", ("pyrandom", py_random)),
]:
    Counted.calls = 0
    t = time.perf_counter()
    card = awale.scorecard(agent, rules="abapa", protocol=PROTO, threads=threads)
    dt = time.perf_counter() - t
    per_call = f"{1e6 * dt / Counted.calls:6.1f} us a call ({Counted.calls} calls)" if Counted.calls else ""
    print(f"{name:24s} {card.games} games {dt:6.2f} s {card.games / dt:8.1f} games/s {per_call}",
          flush=True)
