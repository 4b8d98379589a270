"""Examples shipped in the wheel, to run and to copy:

    python -m awale.examples.uci_bot     # a bot speaking the engine protocol (docs/engines.md)
    python -m awale.examples.jsonl_bot   # the same as JSON lines, standard library only

Importing this package imports none of them.
"""

#: Programs, not an API: nothing to import from here (each runs with `python -m`).
__all__: list[str] = []
