#!/usr/bin/env python3
"""Test programs that speak JSON lines and misbehave, one per MODE (tests/engines.rs plays each):
  garbage   answers go with a line that is not JSON
  badmove   answers a move that is no move ("@@")
  illegal   always answers South's first house (illegal when it plays North)
  unknown   answers go with a reply that has an unknown field
  hang      never answers go
  good      plays the first legal move it is sent (no fault)
"""

import json
import sys

mode = sys.argv[1]
legal = []


def say(**reply):
    print(json.dumps(reply), flush=True)


for line in sys.stdin:
    message = json.loads(line)
    cmd = message["cmd"]
    if cmd == "hello":
        say(reply="id", name=f"misbehave_jsonl {mode}")
        say(reply="hellook")
    elif cmd == "isready":
        say(reply="readyok")
    elif cmd == "position":
        legal = message["legal"]
    elif cmd == "go":
        if mode == "garbage":
            print("bestmove C", flush=True)
        elif mode == "badmove":
            say(reply="bestmove", move="@@")
        elif mode == "illegal":
            say(reply="bestmove", move="A")
        elif mode == "unknown":
            say(reply="bestmove", move=legal[0], ponder="x")
        elif mode == "good":
            say(reply="bestmove", move=legal[0])
    elif cmd == "quit":
        break
