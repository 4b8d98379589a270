"""Tournament wall time: local threads against Ray workers on one machine (docs/scaling.md).

    pip install ray && python benches/bench_ray_tournament.py
"""
import os, time, tempfile, json
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
import ray, awale
AG = ["alphabeta:depth=7", "mcts:sims=2000", "greedy"]
KW = dict(games=24, seed=5)
rows = []
def timed(label, **kw):
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter(); r = awale.tournament(AG, out=d, **KW, **kw); dt = time.perf_counter() - t
    rows.append((label, dt, r.games)); print(label, f"{dt:.2f} s", r.games, flush=True)
    return r
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
for rep in range(2):
    a = timed("local threads=1", threads=1)
    b = timed("local threads=2", threads=2)
    c = timed("ray workers=1", backend="ray", workers=1)
    d = timed("ray workers=2", backend="ray", workers=2)
    e = timed("ray workers=4", backend="ray", workers=4)
    assert str(a) == str(b) == str(c) == str(d) == str(e)
ray.shutdown()
