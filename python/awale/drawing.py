"""The board as a picture (``render_mode="rgb_array"``): NumPy only, no fonts or image libraries.

One row of houses per player in sowing order (with 2 players North's row is drawn above South's,
right to left, as on a real board), each house with its seeds as dots (or its count in digits
above 12 seeds), the store at the end of the row, the mover's row outlined, and the last house
played marked with a bar.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from awale import _core

CELL = 44
GAP = 6
BORDER = 3

BACKGROUND = (236, 220, 190)
HOUSE = (176, 128, 72)
STORE = (150, 104, 56)
SEED = (40, 32, 24)
MOVER = (200, 40, 40)
LAST = (40, 90, 200)

#: 3x5 bitmaps of the digits 0-9 (rows top to bottom, bit 2 = left column).
_DIGITS = [
    (7, 5, 5, 5, 7), (2, 6, 2, 2, 7), (7, 1, 7, 4, 7), (7, 1, 7, 1, 7), (5, 5, 7, 1, 1),
    (7, 4, 7, 1, 7), (7, 4, 7, 5, 7), (7, 1, 1, 1, 1), (7, 5, 7, 5, 7), (7, 5, 7, 1, 7),
]


def _text(img: np.ndarray, y: int, x: int, number: int, color: tuple, scale: int = 3) -> None:
    """Draws `number` with its top-left corner at (y, x)."""
    for k, ch in enumerate(str(number)):
        rows = _DIGITS[int(ch)]
        for r, bits in enumerate(rows):
            for c in range(3):
                if bits & (4 >> c):
                    y0 = y + r * scale
                    x0 = x + (k * 4 + c) * scale
                    img[y0 : y0 + scale, x0 : x0 + scale] = color


def _seeds(img: np.ndarray, y: int, x: int, count: int) -> None:
    """`count` seeds in a house whose top-left corner is (y, x): dots up to 12, digits above."""
    if count > 12:
        width = len(str(count)) * 12 - 3
        _text(img, y + (CELL - 15) // 2, x + (CELL - width) // 2, count, SEED)
        return
    for k in range(count):
        r, c = divmod(k, 4)
        y0, x0 = y + 8 + r * 10, x + 6 + c * 9
        img[y0 : y0 + 6, x0 : x0 + 6] = SEED


def board_rgb(state: "_core.State", last_house: Optional[int] = None) -> np.ndarray:
    """The board of `state` as an ``(H, W, 3)`` ``uint8`` image. `last_house` is the pit
    (0-based over the whole board) of the last move, if any."""
    rules = state.rules
    players, houses = rules.players, rules.houses
    pits, scores = state.pits, state.scores
    width = (houses + 1) * (CELL + GAP) + GAP
    height = players * (CELL + GAP) + GAP
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    for p in range(players):
        # Row order: with 2 players North on top (drawn right to left), South below.
        row = (players - 1 - p) if players == 2 else p
        y = GAP + row * (CELL + GAP)
        if p == state.to_move and not state.is_over:
            img[y - BORDER : y + CELL + BORDER, GAP - BORDER : width - GAP + BORDER] = MOVER
            img[y : y + CELL, GAP : width - GAP] = BACKGROUND
        for h in range(houses):
            col = (houses - 1 - h) if (players == 2 and p == 1) else h
            x = GAP + col * (CELL + GAP)
            pit = p * houses + h
            img[y : y + CELL, x : x + CELL] = HOUSE
            if last_house == pit:
                img[y + CELL - 5 : y + CELL, x : x + CELL] = LAST
            _seeds(img, y, x, int(pits[pit]))
        x = GAP + houses * (CELL + GAP)
        img[y : y + CELL, x : x + CELL] = STORE
        score = int(scores[p])
        width_digits = len(str(score)) * 12 - 3
        _text(img, y + (CELL - 15) // 2, x + (CELL - width_digits) // 2, score, BACKGROUND)
    return img
