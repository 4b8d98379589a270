"""Self-play training on Ray actors against the local trainer, on one machine (docs/scaling.md).

Runs `iterations` iterations of training/abapa.toml (no evaluation) three ways, twice each,
alternating: the local trainer with 2 threads (`awale.training.train`), Ray with 2 workers of
1 thread and Ray with 1 worker of 2 threads (`awale.ray_selfplay.train_on_ray`), all three the
same run (2 shards), and Ray with 2 workers and `selfplay.overlap` (the workers play while the
learner trains: another run, reproducible). The script checks both. Needs Ray and an extension built with the
trainer (`maturin build --release --features train`).

    python benches/bench_ray_selfplay.py [iterations]
"""
import os, sys, tempfile, time
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
import ray
from awale.training import checkpoint_info, train
from awale.ray_selfplay import train_on_ray

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "training", "abapa.toml")
ITERS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
SETS = [f"training.iterations={ITERS}", "eval.every=0", "eval.opponents=[]",
        "eval.final_opponents=[]", "training.max_minutes=0", "training.min_replay=512"]

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
runs = {
    "local, 2 threads": lambda out: train(CONFIG, out, overrides=[*SETS, "selfplay.threads=2"],
                                          final_eval=False),
    "Ray, 2 workers x 1 thread": lambda out: train_on_ray(
        CONFIG, out, workers=2, threads_per_worker=1, overrides=SETS, final_eval=False),
    "Ray, 1 worker x 2 threads": lambda out: train_on_ray(
        CONFIG, out, workers=1, threads_per_worker=2, overrides=SETS, final_eval=False),
    "Ray, 2 x 1, overlap": lambda out: train_on_ray(
        CONFIG, out, workers=2, threads_per_worker=1,
        overrides=[*SETS, "selfplay.overlap=true"], final_eval=False),
}
crcs, overlapped = set(), set()
for rep in range(2):
    for label, run in runs.items():
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            s = run(os.path.join(d, "run"))
            wall = time.perf_counter() - t
            crc = checkpoint_info(os.path.join(d, "run", "checkpoint.ckpt"))["model_crc32"]
            (overlapped if "overlap" in label else crcs).add(crc)
        print(f"{label:28s} wall {wall:6.2f} s  self-play {s['moves_per_sec']:7.0f} moves/s  "
              f"{s['positions']} positions  {s['train_steps']} steps", flush=True)
assert len(crcs) == 1, "the runs differ"
assert len(overlapped) == 1, "the overlapped runs differ"
print("every run without overlap made the same network; both overlapped runs made the same one")
ray.shutdown()
