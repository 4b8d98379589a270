"""A game against a person in the terminal: any agent (a spec, an :class:`awale.Agent`, a
search agent, any Python agent).

:func:`play` shows the board, reads the person's moves (a house in move notation, ``"c"``, or
its index, ``"2"``; either case; ``hint`` asks alpha-beta, ``undo`` takes back to the person's
previous turn, as ``awale play`` does) and lets the agent answer::

    import awale

    awale.play("alphabeta:depth=6")                # you move first; "q" quits
    awale.play(lambda state: state.legal_moves()[0])  # any function of a State
    awale.play(awale.SearchAgent(evaluate, sims=200)) # evaluate(obs, mask) -> (logits, values)

Built-in agents also play against a person with the command ``awale play`` and the browser
page of ``awale serve``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from awale import _core

__all__ = ["play"]


def _movers(game: "_core.Game") -> list:
    """The seat that played each move of ``game``."""
    state = game.start.copy()
    movers = []
    for h in game.moves:
        movers.append(state.to_move)
        state.apply(h)
    return movers


def play(
    opponent: Any,
    rules: Any = "abapa",
    *,
    you: int = 0,
    input: Callable[[str], str] = input,
    output: Callable[[str], Any] = print,
) -> "_core.Game":
    """Plays one game of ``rules`` between a person (seat ``you``) and ``opponent`` (the other
    seats): an agent spec string (``"alphabeta:depth=6"``, built as :class:`awale.Agent`), or a
    Python agent as everywhere in awale: an object with ``select(state) -> house``
    (:class:`awale.Agent`, :class:`awale.SearchAgent`, :class:`awale.ObservationAgent`) or a
    function of an :class:`awale.State` returning a house. ``input`` and ``output`` read the person's moves and show the
    game (the terminal by default). Returns the :class:`awale.Game`, finished or left when the
    person types ``q``. ``hint`` shows :meth:`awale.Game.hint`'s move and what it found;
    ``undo`` takes back the moves since the person's last one, and that one. A move that cannot
    be read or is illegal is refused with the reason and asked again; an agent's illegal move
    raises ``ValueError``."""
    game = _core.Game(rules)
    players = game.rules.players
    if isinstance(opponent, str):
        opponent = _core.Agent(opponent, game.rules)
    form = _core._agent_form(opponent, "opponent")
    if not isinstance(you, int) or not 0 <= you < players:
        raise ValueError(f"you must be a seat from 0 to {players - 1}, got {you!r}")
    while not game.is_over:
        state = game.state
        output(state.render())
        mover = state.to_move
        if mover == you:
            legal = ", ".join(state.move_text(h) for h in state.legal_moves())
            text = input(f"your move ({legal}; hint, undo, q quits): ").strip()
            if text.lower() in ("q", "quit"):
                return game
            if text.lower() == "hint":
                h = game.hint()
                output(f"hint: {h['move']} ({h['summary']})")
                continue
            if text.lower() == "undo":
                if you not in _movers(game):
                    output("nothing to undo: you have not moved yet")
                    continue
                game.undo()
                while game.state.to_move != you:
                    game.undo()
                continue
            try:
                if text.isdigit():
                    game.apply(int(text))
                else:
                    try:
                        game.apply_move(text)
                    except ValueError:
                        if text.swapcase() == text:
                            raise
                        game.apply_move(text.swapcase())  # "a" for South's "A"
            except (ValueError, TypeError) as e:
                output(f"not a legal move: {e}")
            continue
        h = _core._agent_move(opponent, form, state, "opponent")
        output(f"player {mover} plays {state.move_text(h)}")
        game.apply(h)
    output(game.state.render())
    output(f"game over: {game.end_reason}, scores {game.state.scores}")
    return game
