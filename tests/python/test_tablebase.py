"""awale.Tablebase: build, save, open, probe, the endgame yardstick, and clear errors."""

from __future__ import annotations

import pytest

import awale


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("tables")
    awale.Tablebase.build("abapa", max_seeds=6, threads=2, out=str(out))
    return str(out)


def test_build_open_and_probe_agree(saved: str) -> None:
    built = awale.Tablebase.build("abapa", max_seeds=6, threads=1)
    opened = awale.Tablebase(saved, "abapa")
    assert opened.max_seeds == 6 and built.max_seeds == 6
    assert "abapa" in repr(opened)
    # South: E = 1, F = 1; North: a = 1, b = 1. 4 seeds on the board.
    position = "abapa 0,0,0,0,1,1/1,1,0,0,0,0 22,22 0"
    a, b = opened.probe(position), built.probe(awale.parse_position(position))
    assert a == b
    assert set(a) == {"seeds", "value", "cycle", "moves", "best_moves"}
    assert a["seeds"] == 4 and 0 <= a["value"] <= 4
    assert set(a["moves"]) == {4, 5}
    assert all(a["moves"][m] == max(a["moves"].values()) for m in a["best_moves"])
    assert opened.value(position) == a["value"]
    # Outside the table: None from value, a ValueError from probe.
    assert opened.value(awale.State("abapa")) is None
    with pytest.raises(awale.ConfigError, match="48 seeds"):
        opened.probe(awale.State("abapa"))


def test_bad_input_is_refused(saved: str, tmp_path) -> None:
    with pytest.raises(awale.ConfigError, match="missing"):
        awale.Tablebase(str(tmp_path), "abapa")
    with pytest.raises(ValueError, match="single-sowing"):
        awale.Tablebase(saved, "oware3")
    table = awale.Tablebase(saved, "abapa")
    with pytest.raises(ValueError, match="built for"):
        table.probe("wari 0,0,0,0,1,1/1,1,0,0,0,0 22,22 0")
    with pytest.raises(TypeError, match="State or a position string"):
        table.probe(42)  # type: ignore[arg-type]
    with pytest.raises(awale.ParseError):
        table.probe("abapa 1,2,3")
    corrupt = tmp_path / "abapa-00.awtb"
    corrupt.write_bytes(b"AWALETB\0" + bytes(40))
    with pytest.raises(awale.ConfigError, match="format version 0"):
        awale.Tablebase(str(tmp_path), "abapa")


def test_endgame_accuracy_of_a_callable(saved: str) -> None:
    table = awale.Tablebase(saved, "abapa")
    positions = table.endgame_positions(count=30, seed=3)
    assert len(positions) == 30
    assert positions == table.endgame_positions(count=30, seed=3)
    assert all(sum(p.pits) <= 6 for p in positions)

    def perfect(state: awale.State) -> int:
        return table.probe(state)["best_moves"][0]

    def first_legal(state: awale.State) -> int:
        return state.legal_moves()[0]

    best = table.accuracy(perfect, positions)
    assert best == {
        "positions": 30,
        "optimal": 30,
        "optimal_share": 1.0,
        "mean_loss": 0.0,
        "result_share": 1.0,
    }
    naive = table.accuracy(first_legal, positions)
    assert naive["positions"] == 30 and naive["optimal"] <= 30
    assert naive["mean_loss"] >= 0.0
    assert naive["optimal_share"] <= naive["result_share"] <= 1.0
    with pytest.raises(TypeError, match="function of a State"):
        table.accuracy(3, positions)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="house"):
        table.accuracy(lambda s: "A", positions)  # type: ignore[arg-type,return-value]
    with pytest.raises(awale.IllegalActionError):
        table.accuracy(lambda s: 17, positions)

    def boom(state: awale.State) -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        table.accuracy(boom, positions)
