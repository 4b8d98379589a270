#!/usr/bin/env python3
"""A bot written to the engine protocol (Aalina's UCI dialect, docs/engines.md), to copy.

It reads commands on stdin and answers on stdout, one line each. Any referee that speaks the
protocol can play it: ``awale tournament``, ``awale match``, ``awale.tournament`` (with the spec
``engine:cmd=python3,args=-m awale.examples.uci_bot`` from Python; on the command line,
where specs are split at spaces, ``args=`` names this file), Aualé. Its moves come from ``choose`` below: the move that
captures the most seeds, the leftmost among equals. Replace ``choose`` with your own.

Try it by hand::

    printf 'uci\\nposition startpos moves C\\ngo movetime 100\\nquit\\n' | python3 -m awale.examples.uci_bot

and rate it::

    BOT=$(python3 -c 'import awale.examples.uci_bot as b; print(b.__file__)')
    awale match engine:cmd=python3,args=$BOT,name=bot greedy --games 20

It ships in the wheel (``awale/examples/uci_bot.py``): copy the file to start a bot of your own.

The board and the moves are the ``awale`` package's (``pip install awale``): the bot only
translates the protocol's FEN and move letters to an ``awale.Game``.
"""

import sys

import awale


def choose(game: awale.Game) -> int:
    """The house (0-based in the mover's row) to play: the biggest capture now."""
    best, best_gain = None, -1
    for house in game.legal_moves():
        after = game.copy()
        gain = after.apply(house)  # seeds captured by the move
        if gain > best_gain:
            best, best_gain = house, gain
    return best


def game_from(rules: str, words: list[str]) -> awale.Game:
    """The game of a ``position`` command's words: ``startpos`` or ``fen F``, then ``moves``.

    A FEN is ``4-4-4-4-4-4-4-4-4-4-4-4-0-0-S``: South's houses A-F, North's a-f, the two
    stores, the side to move. Moves are letters (``FaBf`` or ``F a B f``).
    """
    if words[0] == "startpos":
        game, rest = awale.Game(rules), words[1:]
    elif words[0] == "fen" and len(words) > 1:
        *counts, side = words[1].split("-")
        south, north, stores = counts[:6], counts[6:12], counts[12:]
        position = f"{rules} {','.join(south)}/{','.join(north)} {','.join(stores)} {'0' if side == 'S' else '1'}"
        game, rest = awale.Game(position=position), words[2:]
    else:
        raise ValueError("position needs 'startpos' or 'fen FEN'")
    if rest[:1] == ["moves"]:
        for letter in "".join(rest[1:]):
            game.apply_move(letter)
    return game


def main() -> None:
    rules = "abapa"
    game = awale.Game(rules)

    def say(line: str) -> None:
        print(line, flush=True)

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        try:
            if command == "uci":
                say("id name uci_bot.py")
                say("id author an awale user")
                say("option name UCI_Variant type combo default abapa var abapa var awale var wari")
                say("uciok")
            elif command == "isready":
                say("readyok")
            elif command == "setoption" and words[1:3] == ["name", "UCI_Variant"]:
                rules = words[4]
                game = awale.Game(rules)
            elif command == "ucinewgame":
                game = awale.Game(rules)
            elif command == "position":
                game = game_from(rules, words[1:])
            elif command == "go":
                if game.is_over:
                    say("bestmove 0000")
                else:
                    say("bestmove " + game.state.move_text(choose(game)))
            elif command == "quit":
                return
        except (ValueError, IndexError) as e:  # a bad command: say why, change nothing
            say(f"info string error: {e}")


if __name__ == "__main__":
    main()
