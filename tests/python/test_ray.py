"""Tournaments on Ray (issue 15): a local Ray instance (`ray.init(num_cpus=2)`) plays the same
games and gives the same table as a local run, resumes a stopped run, and ships Python
callables to its workers. Under ``CI=true`` a missing Ray fails instead of skipping."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import awale
from conftest import our_ray_processes

AGENTS = ["random", "greedy", "alphabeta:depth=2"]


def _games(folder: Path) -> list[dict]:
    lines = (folder / "games.jsonl").read_text().splitlines()
    return sorted((json.loads(x) for x in lines), key=lambda g: g["index"])


def test_a_ray_tournament_equals_the_local_one(ray, tmp_path):
    local = awale.tournament(AGENTS, games=6, seed=7, out=tmp_path / "local", threads=2)
    remote = awale.tournament(AGENTS, games=6, seed=7, out=tmp_path / "ray", backend="ray", workers=3)
    assert remote.complete and remote.games == local.games == 18
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    assert (tmp_path / "ray" / "results.json").read_text() == (tmp_path / "local" / "results.json").read_text()
    assert str(remote) == str(local)


def test_a_stopped_ray_tournament_resumes(ray, tmp_path):
    out = tmp_path / "resume"
    awale.tournament(AGENTS, games=4, seed=3, out=out, limit=5)
    # A torn last line (a crash while writing) is dropped and its game played again.
    with (out / "games.jsonl").open("a") as f:
        f.write('{"index": 9, "pairing"')
    result = awale.tournament(AGENTS, games=4, seed=3, out=out, backend="ray", workers=2)
    assert result.complete
    whole = awale.tournament(AGENTS, games=4, seed=3, out=tmp_path / "whole")
    assert _games(out) == _games(tmp_path / "whole")
    assert str(result) == str(whole)


def test_python_callables_play_on_ray_workers(ray, tmp_path):
    def lowest(obs, mask):
        return int(mask.argmax())

    agents = [("lowest", lowest), "random"]
    local = awale.tournament(agents, games=4, seed=1)
    remote = awale.tournament(agents, games=4, seed=1, backend="ray", workers=2)
    assert str(remote) == str(local)


def test_search_agents_play_on_ray_workers(ray, tmp_path):
    agents = [awale.SearchAgent("playout", sims=16, name="playout16"), "random"]
    local = awale.tournament(agents, games=2, seed=4)
    remote = awale.tournament(agents, games=2, seed=4, backend="ray", workers=2)
    assert str(remote) == str(local)


def test_bad_ray_arguments_are_refused():
    with pytest.raises(ValueError, match="backend"):
        awale.tournament(AGENTS, backend="spark")
    with pytest.raises(ValueError, match="shards the games itself"):
        awale.tournament(AGENTS, backend="ray", shard=(0, 2))
    with pytest.raises(ValueError, match="workers is for"):
        awale.tournament(AGENTS, workers=2)
    with pytest.raises(ValueError, match="k must be"):
        awale.tournament(AGENTS, shard=(2, 2))
    with pytest.raises(TypeError, match="shard must be"):
        awale.tournament(AGENTS, shard="0/2")


def test_the_cli_string_form_with_options_plays_on_ray(ray, tmp_path):
    text = "random,alphabeta:depth=2,tt_mb=1,greedy"
    local = awale.tournament(text, games=2, seed=2)
    remote = awale.tournament(text, games=2, seed=2, backend="ray", workers=2)
    assert str(remote) == str(local)
    assert "alphabeta:depth=2,tt_mb=1" in str(remote)


#: Agents slow enough that a shard's task runs for a second or so.
SLOW = ["alphabeta:depth=5", "mcts:sims=600", "greedy"]


def _kill_a_shard_while(job: threading.Thread) -> bool:
    """SIGKILLs the first shard task (``ray::_play_shard``) of this test's Ray seen running
    while ``job`` goes on; whether one was killed."""
    while job.is_alive():
        for pid in our_ray_processes("_play_shard"):
            try:
                os.kill(pid, signal.SIGKILL)
                return True
            except ProcessLookupError:
                pass
        time.sleep(0.005)
    return False


def test_a_ray_tournament_with_a_worker_killed_midway_equals_the_local_one(ray, tmp_path,
                                                                           monkeypatch):
    """Issue 43: Ray runs a lost task again (the shard's games depend only on the seed), so
    the standings are the local run's; a shard lost more often than ``TASK_RETRIES`` stops the
    run with the reason, and the same call then resumes from the games kept in ``out``."""
    import awale.distributed

    local = awale.tournament(SLOW, games=8, seed=11, out=tmp_path / "local", threads=2)
    box: dict = {}

    def play(out: Path) -> None:
        try:
            box["result"] = awale.tournament(SLOW, games=8, seed=11, out=out, backend="ray",
                                             workers=4)
        except Exception as e:  # checked below
            box["error"] = e

    job = threading.Thread(target=play, args=(tmp_path / "ray",))
    job.start()
    killed = _kill_a_shard_while(job)
    job.join()
    assert killed and "error" not in box, box
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    assert (tmp_path / "ray" / "results.json").read_text() == \
        (tmp_path / "local" / "results.json").read_text()
    assert str(box["result"]) == str(local)

    # No retries left: the run stops, naming the shard; the games joined so far are kept.
    monkeypatch.setattr(awale.distributed, "TASK_RETRIES", 0)
    box.clear()
    job = threading.Thread(target=play, args=(tmp_path / "stopped",))
    job.start()
    killed = _kill_a_shard_while(job)
    job.join()
    assert killed
    assert isinstance(box.get("error"), awale.TournamentError), box
    assert "its worker died 1 times" in str(box["error"]) and "resumes" in str(box["error"])
    monkeypatch.setattr(awale.distributed, "TASK_RETRIES", 3)
    again = awale.tournament(SLOW, games=8, seed=11, out=tmp_path / "stopped", backend="ray",
                             workers=4)
    assert _games(tmp_path / "stopped") == _games(tmp_path / "local")
    assert str(again) == str(local)
