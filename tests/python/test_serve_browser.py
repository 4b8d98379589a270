"""`awale serve` end to end in a real browser: headless Chromium driven by Playwright plays a
game against ``alphabeta:depth=2`` to the end by clicking houses, then replays a tournament file
move by move.

Needs the `awale` binary built with the `serve` feature (``AWALE_BIN``, set by ``.ci/test``),
Chromium from the distribution (``apt-get install chromium``; ``AWALE_CHROMIUM`` overrides the
path) and the ``playwright`` package (its own browser download is not used). Under ``CI=true``
a missing piece fails the test instead of skipping it. ``AWALE_SCREENSHOTS=DIR`` saves the
page's pictures (those of ``docs/img/serve_*.png``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CI = os.environ.get("CI", "").lower() == "true"


def _need(what: str):
    if CI:
        pytest.fail(f"{what} is missing (CI installs it)")
    pytest.skip(f"{what} is missing")


def _binary() -> str:
    b = os.environ.get("AWALE_BIN")
    if not b or not Path(b).exists():
        _need("the awale binary with `serve` (AWALE_BIN)")
    return b


def _chromium() -> str:
    for c in [os.environ.get("AWALE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if c and shutil.which(c):
            return shutil.which(c)
    _need("chromium")


@pytest.fixture
def server():
    proc = subprocess.Popen(
        [_binary(), "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline()
    assert line.startswith("awale serve: listening on "), line
    yield line.split()[-1]
    proc.kill()
    proc.wait()


@pytest.fixture
def page():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright")
    exe = _chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        pg = browser.new_page(viewport={"width": 1000, "height": 720})
        yield pg
        browser.close()


def _shot(page, name: str) -> None:
    d = os.environ.get("AWALE_SCREENSHOTS")
    if d:
        Path(d).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(d) / name))


def test_play_a_game_by_clicking_then_replay_a_tournament(server, page):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.wait_for_selector("#rules option[value=abapa]", state="attached")
    page.select_option("#rules", "abapa")
    page.fill("#seat-0", "human")
    page.fill("#seat-1", "alphabeta:depth=2")
    page.fill("#seed", "7")
    page.click("#new-game")
    clicks = 0
    for _ in range(400):
        page.wait_for_function(
            "() => { const s = document.querySelector('#status').textContent;"
            " return s.includes('(you)') || s.startsWith('Game over'); }",
            timeout=30_000,
        )
        if page.text_content("#status").startswith("Game over"):
            break
        if clicks == 6:
            _shot(page, "serve_play.png")
        played = len(page.text_content("#moves").split())
        page.click(".house.legal >> nth=0")
        clicks += 1
        page.wait_for_function(
            f"() => document.querySelector('#moves').textContent.split(' ').filter(Boolean).length > {played}"
        )
    status = page.text_content("#status")
    assert status.startswith("Game over"), status
    assert clicks > 3
    moves = page.text_content("#moves").split()
    assert len(moves) >= 2 * clicks - 1
    # The agent's thoughts were shown.
    assert "alpha-beta depth 2" in page.text_content("#thoughts") or "played" in page.text_content(
        "#thoughts"
    )
    assert page.text_content("#error") == ""

    # Replay a tournament file.
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(
            [_binary(), "tournament", "--agents", "greedy,alphabeta:depth=2", "--games", "2",
             "--seed", "3", "--no-progress", "--out", d],
            check=True, capture_output=True,
        )
        jsonl = (Path(d) / "games.jsonl").read_text()
    page.click("#tab-replay")
    page.fill("#replay-text", jsonl)
    page.click("#replay-load")
    page.wait_for_selector("#replay-view:not(.hidden)")
    assert page.locator("#replay-game option").count() == len(jsonl.splitlines())
    for _ in range(3):
        page.click("#replay-next")
    assert page.text_content("#replay-info").startswith("ply 3 of ")
    page.click("#replay-prev")
    assert page.text_content("#replay-info").startswith("ply 2 of ")
    _shot(page, "serve_replay.png")
    page.click("#replay-last")
    info = page.text_content("#replay-info")
    assert "ended by" in info or "ongoing" not in info, info
    # A bad record: the reason, on the page.
    page.fill("#replay-text", "{not json")
    page.click("#replay-load")
    page.wait_for_function("() => document.querySelector('#replay-error').textContent.length > 0")
    assert "line 1" in page.text_content("#replay-error")
    assert errors == [], errors


def test_a_crafted_replay_file_shows_its_text_and_runs_nothing(server, page):
    """Seat names come from the uploaded file: markup in them is shown as text, never run."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(
            [_binary(), "tournament", "--agents", "random,greedy", "--games", "2",
             "--seed", "5", "--no-progress", "--out", d],
            check=True, capture_output=True,
        )
        lines = (Path(d) / "games.jsonl").read_text().splitlines()
    payload = '<img src=x onerror="window.__pwned=1">'
    crafted = []
    for line in lines:
        g = json.loads(line)
        g["seats"] = [payload, "<script>window.__pwned=2</script>"]
        crafted.append(json.dumps(g))
    page.goto(server)
    page.click("#tab-replay")
    page.fill("#replay-text", "\n".join(crafted))
    page.click("#replay-load")
    page.wait_for_selector("#replay-view:not(.hidden)")
    options = page.locator("#replay-game option")
    assert options.count() == len(crafted)
    text = options.nth(0).text_content()
    assert payload in text and "<script>" in text, text
    assert page.locator("#replay-game img, #replay-game script").count() == 0
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__pwned") is None
    assert errors == [], errors
