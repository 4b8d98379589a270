#!/usr/bin/env python3
"""A bounded load test of `awale serve` on 127.0.0.1 (it starts the server itself and talks to
nothing else): CHEAP clients play whole games as a person against `random` or `greedy` (a pause
of THINK_MS before each of their moves; 0 sends requests back to back), while COSTLY clients
keep asking for the most expensive agent the server's policy allows
(`alphabeta:depth=<max>,tt_mb=<max>` thinking for the whole move time), and one PROBE, in a
process of its own, plays cheap games at a steady pace (a request every 50 ms) to measure how
fast the server answers a cheap request meanwhile. The clients run in PROCESSES worker
processes (Python threads of one process would wait on each other's interpreter lock, and
that wait would be counted as the server's). It stops by itself after SECONDS, then prints the
throughput, the latency of the clients' and of the probe's requests (p50, p99, max), the
answers by status, the server's peak memory and its most threads, as a table and as JSON.

    python tools/serve_load.py --bin target/release/awale --clients 200 --costly 8 --seconds 60

Only the standard library; the figures of docs/play.md come from it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import threading
import time


def request(port: int, method: str, path: str, body=None, timeout=60.0):
    """One request on its own connection: (status, parsed JSON or None, seconds)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = None if body is None else json.dumps(body)
    headers = {} if body is None else {"Content-Type": "application/json"}
    t0 = time.perf_counter()
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        dt = time.perf_counter() - t0
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return resp.status, parsed, dt
    finally:
        conn.close()


class Stats:
    """What the clients of one process saw (merged across processes at the end)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cheap = []  # latencies of cheap requests (s)
        self.statuses = {}
        self.games = 0
        self.requests = 0
        self.errors = []

    def as_dict(self) -> dict:
        return {"cheap": self.cheap, "statuses": self.statuses, "games": self.games,
                "requests": self.requests, "errors": self.errors}

    def add(self, status: int, dt: float, cheap: bool):
        with self.lock:
            self.requests += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if cheap:
                self.cheap.append(dt)


def cheap_client(port: int, stop: float, stats: Stats, seed: int, think: float = 0.0):
    rng = random.Random(seed)
    while time.time() < stop:
        agent = rng.choice(["random", "greedy"])
        status, v, dt = request(port, "POST", "/api/games", {"rules": "abapa", "seats": ["human", agent], "seed": seed})
        stats.add(status, dt, True)
        if status != 201:
            with stats.lock:
                stats.errors.append(f"new game: {status} {v}")
            time.sleep(0.1)
            continue
        gid = v["id"]
        while time.time() < stop and not v["over"]:
            if v["person_to_move"]:
                if think > 0:
                    time.sleep(think)
                status, nv, dt = request(port, "POST", f"/api/games/{gid}/move", {"house": rng.choice(v["legal"])})
            else:
                status, nv, dt = request(port, "POST", f"/api/games/{gid}/agent-move")
            stats.add(status, dt, True)
            if status in (200, 202):
                v = nv
            elif status == 503:
                time.sleep(0.05)
            else:
                with stats.lock:
                    stats.errors.append(f"move: {status} {nv}")
                break
            while v.get("thinking") and time.time() < stop:
                time.sleep(0.02)
                status, nv, dt = request(port, "GET", f"/api/games/{gid}")
                stats.add(status, dt, True)
                if status == 200:
                    v = nv
        if v.get("over"):
            with stats.lock:
                stats.games += 1
        status, _, dt = request(port, "DELETE", f"/api/games/{gid}")
        stats.add(status, dt, True)


def costly_client(port: int, stop: float, stats: Stats, spec: str):
    while time.time() < stop:
        status, v, dt = request(port, "POST", "/api/games", {"rules": "abapa", "seats": [spec, "human"]})
        stats.add(status, dt, False)
        if status != 201:
            with stats.lock:
                stats.errors.append(f"costly game: {status} {v}")
            time.sleep(0.5)
            continue
        status, _, dt = request(port, "POST", f"/api/games/{v['id']}/agent-move")
        stats.add(status, dt, False)
        status, _, dt = request(port, "DELETE", f"/api/games/{v['id']}")
        stats.add(status, dt, False)


def worker(port: int, stop: float, seeds: list, think: float, costly: int, spec: str, out):
    """One process of clients: a thread per cheap client (one per seed) and per costly one."""
    stats = Stats()
    threads = [threading.Thread(target=cheap_client, args=(port, stop, stats, k, think), daemon=True) for k in seeds]
    threads += [threading.Thread(target=costly_client, args=(port, stop, stats, spec), daemon=True) for _ in range(costly)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, stop - time.time()) + 60)
    with stats.lock:
        out.put(stats.as_dict())


def probe(port: int, stop: float, out, every: float = 0.05):
    """Cheap games at a steady pace, alone in its process: the latency of each request."""
    latencies, statuses = [], {}

    def timed(method, path, body=None):
        status, v, dt = request(port, method, path, body, timeout=30.0)
        latencies.append(dt)
        statuses[status] = statuses.get(status, 0) + 1
        time.sleep(every)
        return status, v

    rng = random.Random(7)
    while time.time() < stop:
        status, v = timed("POST", "/api/games", {"rules": "abapa", "seats": ["human", "random"]})
        if status != 201:
            continue
        gid = v["id"]
        for _ in range(4):
            if time.time() >= stop or v["over"]:
                break
            if v["person_to_move"]:
                status, nv = timed("POST", f"/api/games/{gid}/move", {"house": rng.choice(v["legal"])})
            else:
                status, nv = timed("POST", f"/api/games/{gid}/agent-move")
            if status != 200:
                break
            v = nv
        timed("DELETE", f"/api/games/{gid}")
    out.put({"latencies": latencies, "statuses": statuses})


def watch(pid: int, stop: float, peak: dict):
    """The server's peak resident memory (VmHWM) and its most threads, from /proc."""
    while time.time() < stop + 1:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak["rss_mib"] = max(peak.get("rss_mib", 0), int(line.split()[1]) / 1024)
                    elif line.startswith("Threads:"):
                        peak["threads"] = max(peak.get("threads", 0), int(line.split()[1]))
        except OSError:
            return
        time.sleep(0.05)


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("AWALE_BIN", "target/release/awale"))
    ap.add_argument("--clients", type=int, default=200, help="cheap clients playing whole games")
    ap.add_argument("--costly", type=int, default=8, help="clients asking for the costliest agent allowed")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--move-time-ms", type=int, default=2000)
    ap.add_argument("--think-ms", type=int, default=0, help="a cheap client's pause before each of its moves")
    ap.add_argument("--processes", type=int, default=4, help="worker processes the clients are spread over")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)

    server = subprocess.Popen(
        # The load's clients all come from 127.0.0.1: the caps of one address are raised to
        # the server's (they stand for many users, not one).
        [args.bin, "serve", "--port", "0", "--move-time-ms", str(args.move_time_ms),
         "--max-client-connections", "256", "--max-client-games", "256"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        line = server.stdout.readline()
        if not line.startswith("awale serve: listening on http://127.0.0.1:"):
            print(f"the server did not start: {line!r}", file=sys.stderr)
            return 2
        port = int(line.rsplit(":", 1)[1].strip("/\n "))
        _, agents, _ = request(port, "GET", "/api/agents")
        lim = agents["limits"]
        spec = f"alphabeta:depth={lim['depth']},tt_mb={lim['tt_mb']}"
        stop = time.time() + args.seconds
        peak: dict = {}
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        procs = max(1, min(args.processes, args.clients + args.costly))
        seeds = list(range(args.clients))
        workers = [
            ctx.Process(
                target=worker,
                args=(port, stop, seeds[p::procs], args.think_ms / 1000, len(range(args.costly)[p::procs]), spec, queue),
                daemon=True,
            )
            for p in range(procs)
        ]
        prober = ctx.Process(target=probe, args=(port, stop, queue), daemon=True)
        watcher = threading.Thread(target=watch, args=(server.pid, stop, peak), daemon=True)
        t0 = time.time()
        watcher.start()
        for w in workers + [prober]:
            w.start()
        parts = [queue.get(timeout=max(0.0, stop - time.time()) + args.move_time_ms / 1000 + 90) for _ in workers + [prober]]
        for w in workers + [prober]:
            w.join(timeout=10)
        watcher.join(timeout=5)
        elapsed = time.time() - t0
        alive = server.poll() is None
    finally:
        server.kill()
        server.wait()
    stats = Stats()
    probed = {"latencies": [], "statuses": {}}
    for part in parts:
        if "latencies" in part:
            probed = part
            continue
        stats.cheap += part["cheap"]
        stats.games += part["games"]
        stats.requests += part["requests"]
        stats.errors += part["errors"]
        for k, v in part["statuses"].items():
            stats.statuses[k] = stats.statuses.get(k, 0) + v
    for k, v in probed["statuses"].items():
        stats.statuses[k] = stats.statuses.get(k, 0) + v
    stats.requests += len(probed["latencies"])
    probe_ms = probed["latencies"]
    result = {
        "clients": args.clients,
        "think_ms": args.think_ms,
        "processes": procs,
        "costly_clients": args.costly,
        "costly_spec": spec,
        "limits": lim,
        "seconds": round(elapsed, 1),
        "requests": stats.requests,
        "requests_per_s": round(stats.requests / elapsed, 1),
        "games_finished": stats.games,
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        "cheap_p50_ms": round(1000 * percentile(stats.cheap, 0.50), 2),
        "cheap_p99_ms": round(1000 * percentile(stats.cheap, 0.99), 2),
        "cheap_max_ms": round(1000 * max(stats.cheap, default=float("nan")), 2),
        "probe_requests": len(probe_ms),
        "probe_p50_ms": round(1000 * percentile(probe_ms, 0.50), 2),
        "probe_p99_ms": round(1000 * percentile(probe_ms, 0.99), 2),
        "probe_max_ms": round(1000 * max(probe_ms, default=float("nan")), 2),
        "peak_rss_mib": round(peak.get("rss_mib", float("nan")), 1),
        "peak_threads": peak.get("threads"),
        "server_alive": alive,
        "errors": stats.errors[:5],
    }
    print(f"{args.clients} cheap (think {args.think_ms} ms) + {args.costly} costly clients ({spec}) in {procs} processes for {result['seconds']} s:")
    print(f"  {result['requests']} requests ({result['requests_per_s']}/s), {stats.games} games finished, statuses {result['statuses']}")
    print(f"  cheap clients' requests: p50 {result['cheap_p50_ms']} ms, p99 {result['cheap_p99_ms']} ms, max {result['cheap_max_ms']} ms")
    print(f"  probe ({result['probe_requests']} requests, one every 50 ms): p50 {result['probe_p50_ms']} ms, p99 {result['probe_p99_ms']} ms, max {result['probe_max_ms']} ms")
    print(f"  server: peak memory {result['peak_rss_mib']} MiB, at most {result['peak_threads']} threads, alive: {alive}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    server_errors = sum(v for k, v in stats.statuses.items() if k >= 500 and k != 503)
    return 0 if alive and server_errors == 0 and not stats.errors else 1


if __name__ == "__main__":
    sys.exit(main())
