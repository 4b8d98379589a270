#!/usr/bin/env python3
"""A test engine that says only free text while it searches (tests/engines.rs): at each go it
writes `info string hello from strings.py` (no depth, no score) and plays South's first house,
A, which is legal at the start position (the only position the test asks it about)."""
import sys

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name strings", flush=True)
        print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        print("info string hello from strings.py", flush=True)
        print("bestmove A", flush=True)
    elif words[0] == "quit":
        break
