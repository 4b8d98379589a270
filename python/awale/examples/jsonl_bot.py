#!/usr/bin/env python3
"""A bot written to the engine protocol's JSON-lines dialect (docs/engines.md), to copy.

It reads one JSON object a line on stdin and answers one a line on stdout. It needs nothing but
Python's standard library: every ``position`` the referee sends carries the legal moves
(``"legal": ["A", "C", ...]``), so the bot knows no rules; its moves come from ``choose`` below,
a random legal move (seeded: the same games give the same moves). Replace ``choose`` with your
own.

Any referee that speaks the dialect can play it: ``awale tournament``, ``awale match``,
``awale.tournament``, with the spec ``engine:cmd=python3,args=PATH,protocol=jsonl`` (PATH this
file; from Python, ``args=-m awale.examples.jsonl_bot`` works too).

Try it by hand::

    printf '{"cmd":"hello"}\\n{"cmd":"position","start":"startpos","legal":["A","B","C"]}\\n{"cmd":"go","movetime":100}\\n{"cmd":"quit"}\\n' | python3 jsonl_bot.py

and rate it::

    awale match engine:cmd=python3,args=$PWD/jsonl_bot.py,protocol=jsonl,name=bot greedy --games 20

The messages (the referee's ``cmd``, the bot's ``reply``):

- ``hello`` -> ``id`` (``name``, ``author``), ``option`` (``variant``: the rule sets it plays),
  then ``hellook``;
- ``setoption`` (``name`` ``variant``, ``value`` a rules spec), ``newgame``, ``position``
  (``start``: ``startpos`` or a FEN, ``moves``, ``legal``): nothing;
- ``isready`` -> ``readyok``; ``go`` (``movetime`` ms, ...) -> ``bestmove`` (``move``, a letter:
  ``A``-``F`` South's houses, ``a``-``f`` North's; ``null`` when there is none);
- ``quit``: exit. ``stop`` comes only during a search, which this bot never has.
"""

import json
import random
import sys

# Every rule set the referee may ask for: the bot plays the legal moves it is sent, whatever the rules.
VARIANTS = ["abapa", "awale", "wari", "openspiel", "oware2"]


def choose(legal: list, rng: random.Random) -> str:
    """The move to play among ``legal`` (letters): one at random."""
    return rng.choice(legal)


def main() -> None:
    rng = random.Random(0)
    legal: list = []

    def say(**reply) -> None:
        print(json.dumps(reply), flush=True)

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            command = message["cmd"]
        except (ValueError, KeyError, TypeError) as e:  # a bad line: say why, change nothing
            say(reply="info", string=f"error: {e!r}")
            continue
        if command == "hello":
            say(reply="id", name="jsonl_bot.py")
            say(reply="id", author="an awale user")
            say(reply="option", name="variant", type="combo", default="abapa", vars=VARIANTS)
            say(reply="hellook")
        elif command == "isready":
            say(reply="readyok")
        elif command == "newgame":
            rng = random.Random(0)
        elif command == "position":
            legal = message.get("legal") or []
        elif command == "go":
            say(reply="bestmove", move=choose(legal, rng) if legal else None)
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
