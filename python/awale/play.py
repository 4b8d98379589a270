"""A game against a person in the terminal: any Python agent, a search agent included.

:func:`play` shows the board, reads the person's moves (a house in move notation, ``"c"``, or
its index, ``"2"``; either case; ``hint`` asks alpha-beta, ``undo`` takes back to the person's
previous turn, as ``awale play`` does) and lets the agent answer::

    import awale

    def evaluate(obs, mask):                      # any policy/value function
        ...
    awale.play(awale.SearchAgent(evaluate, sims=200))   # you move first; "q" quits

Built-in agents (specs such as ``"alphabeta:depth=6"``) play against a person with the command
``awale play`` and the browser page of ``awale serve``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from awale import _core

__all__ = ["play"]


def _agent_move(agent: Any, state: "_core.State") -> int:
    if isinstance(agent, _core.SearchAgent):
        return int(agent.select(state))
    if callable(agent):
        return int(agent(state.observation("compact"), state.action_mask()))
    raise TypeError(
        "opponent must be an awale.SearchAgent or a callable (observation, mask) -> house, "
        f"got {type(agent).__name__}"
    )


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
    seats): an :class:`awale.SearchAgent` or a callable ``(observation, mask) -> house`` as in
    :func:`awale.tournament`. ``input`` and ``output`` read the person's moves and show the
    game (the terminal by default). Returns the :class:`awale.Game`, finished or left when the
    person types ``q``. ``hint`` shows :meth:`awale.Game.hint`'s move and what it found;
    ``undo`` takes back the moves since the person's last one, and that one. A move that cannot
    be read or is illegal is refused with the reason and asked again; an agent's illegal move
    raises ``ValueError``."""
    game = _core.Game(rules)
    players = game.rules.players
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
        h = _agent_move(opponent, state)
        if h not in state.legal_moves():
            raise ValueError(f"the agent chose house {h}, which is not a legal move ({state.legal_moves()})")
        output(f"player {mover} plays {state.move_text(h)}")
        game.apply(h)
    output(game.state.render())
    output(f"game over: {game.end_reason}, scores {game.state.scores}")
    return game
