#!/usr/bin/env python3
"""Random games of OpenSpiel's ``oware``, streamed as a compact binary trace.

Used by ``tests/openspiel_diff.rs`` (the differential test of the ``openspiel`` preset): every
state OpenSpiel reaches is written out, so the Rust side can compare its own engine ply by ply.

Usage::

    python tests/openspiel/trace.py --games 100000 --seed 1 > trace.bin
    python tests/openspiel/trace.py --perft 9          # OpenSpiel's perft, depths 1..9

Needs ``pyspiel`` (``pip install open-spiel``).

Game ``i`` draws its moves from ``random.Random(seed * 2**32 + i)``: one random legal action per
ply, ``la[int(rng.random() * len(la))]``. The trace therefore depends only on ``--seed`` and the
game index, never on ``--jobs``.

Trace format (all integers little-endian)::

    stream header : b"OWTRACE1", u32 games, u64 seed
    per game      : u32 game index, u8 legal mask of the initial state
                    then one record per ply:
                      u8  action played (house 0..5 of the player who moved)
                      14 x f32  OpenSpiel's observation tensor after the move, for player 0:
                                12 seeds / 48, then 2 scores / 48 (multiply by 48, round)
                      u8  flags: bit 0 terminal, bit 1 player 1 to move (when not terminal),
                                 bit 2 OpenSpiel's game-length cap (1000 plies) stopped the game
                      u8  legal mask after the move (bit h = action h; 0 when terminal)
                    the game ends with the first record that has bit 0 or bit 2 set, followed by
                      2 x i8  returns of players 0 and 1 (-1, 0 or +1; 0, 0 when capped)
"""

import argparse
import itertools
import os
import random
import struct
import sys

MAGIC = b"OWTRACE1"
FLAG_TERMINAL = 1
FLAG_PLAYER1 = 2
FLAG_CAPPED = 4
# OpenSpiel's oware refuses to play a ply once 1000 have been played (kMaxGameLength).
MAX_GAME_LENGTH = 1000
# Games per unit of work handed to a worker process.
CHUNK = 250

_GAME = None
# Every subset of the six actions, as OpenSpiel lists it (sorted tuple), to its bit mask.
_MASK = {
    combo: sum(1 << a for a in combo)
    for r in range(7)
    for combo in itertools.combinations(range(6), r)
}


def _game():
    global _GAME
    if _GAME is None:
        import pyspiel

        _GAME = pyspiel.load_game("oware")
    return _GAME


def play_games(seed, first, count):
    """Plays games ``first .. first+count`` and returns their trace bytes."""
    game = _game()
    record = struct.Struct("<B14fBB").pack
    header = struct.Struct("<IB").pack
    returns = struct.Struct("<bb").pack
    mask_of = _MASK
    out = bytearray()
    for index in range(first, first + count):
        rng = random.Random(seed * 2**32 + index)
        rand = rng.random
        state = game.new_initial_state()
        legal = state.legal_actions()
        out += header(index, mask_of[tuple(legal)])
        plies = 0
        while True:
            action = legal[int(rand() * len(legal))]
            state.apply_action(action)
            plies += 1
            obs = state.observation_tensor(0)
            legal = state.legal_actions()
            if state.is_terminal():
                out += record(action, *obs, FLAG_TERMINAL, 0)
                ret = state.returns()
                out += returns(int(ret[0]), int(ret[1]))
                break
            flags = FLAG_PLAYER1 if state.current_player() == 1 else 0
            if plies >= MAX_GAME_LENGTH:
                out += record(action, *obs, flags | FLAG_CAPPED, mask_of[tuple(legal)])
                out += returns(0, 0)
                break
            out += record(action, *obs, flags, mask_of[tuple(legal)])
    return bytes(out)


def _play_chunk(args):
    return play_games(*args)


def write_trace(games, seed, jobs, out):
    """Writes the trace of ``games`` games to the binary stream ``out``, in game order."""
    out.write(MAGIC + struct.pack("<IQ", games, seed))
    chunks = [(seed, first, min(CHUNK, games - first)) for first in range(0, games, CHUNK)]
    if jobs <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            out.write(_play_chunk(chunk))
    else:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for data in pool.imap(_play_chunk, chunks):
                out.write(data)
    out.flush()


def perft(state, depth):
    """Leaves of OpenSpiel's game tree ``depth`` plies below ``state`` (terminal states count
    nothing below them)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    if depth == 1:
        return len(state.legal_actions())
    return sum(perft(state.child(a), depth - 1) for a in state.legal_actions())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random moves (default 0)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores); does not change the trace",
    )
    parser.add_argument(
        "--perft",
        type=int,
        metavar="DEPTH",
        help="instead of a trace, print OpenSpiel's perft from the start for depths 1..DEPTH",
    )
    args = parser.parse_args()
    if args.perft is not None:
        start = _game().new_initial_state()
        for depth in range(1, args.perft + 1):
            print(depth, perft(start, depth), flush=True)
        return 0
    if args.games < 0 or args.games >= 2**32 or args.seed < 0 or args.seed >= 2**64:
        parser.error("--games must fit in u32 and --seed in u64")
    try:
        write_trace(args.games, args.seed, args.jobs, sys.stdout.buffer)
    except BrokenPipeError:
        # The reader stopped early (e.g. at a mismatch); that is not our error to report.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
