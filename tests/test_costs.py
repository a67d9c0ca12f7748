"""Time in proportion to the work (issue 34 §4): an accumulated vector whose cases cost more
than ordinary ones (the spec's cost.case, written into the vector as case_cost) is given
that much more time when the adapter computes it; the 50 BLS signatures of bustabit.vx_game
had 10.5 s at the default --timeout, and the Node port missed it on a loaded machine."""

from __future__ import annotations

import json

from support import REPO

from fairvec.runner.accumulated_by_port import deadline_seconds


def accumulated_entry(family: str, name: str) -> dict[str, object]:
    data = json.loads((REPO / "vectors" / family / f"{name}.json").read_text(encoding="utf-8"))
    entries: list[dict[str, object]] = data["accumulated"]
    return entries[0]


def test_the_signature_stream_is_given_time_for_its_signatures() -> None:
    entry = accumulated_entry("bustabit", "vx_game")
    assert entry["count"] == 50 and entry["case_cost"] == 200
    assert deadline_seconds(10.0, 50, 200) == 110.0  # was 10 x (1 + 50 / 1,000) = 10.5 s


def test_an_ordinary_stream_keeps_its_time() -> None:
    entry = accumulated_entry("bustabit", "crash_v2")
    assert "case_cost" not in entry
    assert deadline_seconds(10.0, 10_000) == 110.0
