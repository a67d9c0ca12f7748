"""The fresh streams' digests are the reference's work; fairvec run computes them while the
fixed vectors run (runner/fresh_streams.py InBackground), not after them with every adapter
idle. In process: a digest that waits on the test shows when the work starts."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from fairvec.runner.accumulated_run import Accumulated
from fairvec.runner.fresh_streams import InBackground, StreamOptions
from fairvec.runner.protocol import parse_hello
from fairvec.vectorfiles import default_vectors_root

HELLO = parse_hello(
    b'{"type": "hello", "protocol": 1, "name": "t", "version": "1",'
    b' "algorithms": {"stake.dice": ["truncate"]}}'
)


def dice_streams() -> list[Accumulated]:
    data = json.loads((default_vectors_root() / "stake" / "dice.json").read_text("utf-8"))
    default = [entry for entry in data["accumulated"] if entry.get("tier") != "full"]
    return [Accumulated(entry, "stake.dice") for entry in default]


class Digest:
    """A stream digest that says when it is asked, then waits to be let go."""

    def __init__(self, fails: bool = False) -> None:
        self.asked, self.go, self.fails = threading.Event(), threading.Event(), fails

    def __call__(self, *_arguments: Any) -> list[str]:
        self.asked.set()
        assert self.go.wait(60), "never let go"
        if self.fails:
            raise RuntimeError("the reference failed")
        return ["0" * 64]


def test_the_digests_are_computed_from_the_start_and_the_seed_said_at_the_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    digest = Digest()
    made = InBackground(dice_streams(), HELLO, StreamOptions(5, "seed", digest))
    # asked while the caller goes on (the fixed vectors run), before anyone waits for it
    assert digest.asked.wait(60)
    assert capsys.readouterr().err == ""  # nothing said through a progress bar meanwhile
    digest.go.set()
    streams, plan = made.result()
    assert plan is not None and plan.seed == "seed"
    fresh = [one for one in streams if one.entry["id"] in plan.streams]
    assert fresh and all(one.entry["expected"]["digest"] == "0" * 64 for one in fresh)
    said = capsys.readouterr().err
    assert said.startswith(f"fairvec: {len(fresh)} fresh accumulated stream(s), seed seed ")


def test_what_the_digest_raised_is_raised_by_result() -> None:
    digest = Digest(fails=True)
    made = InBackground(dice_streams(), HELLO, StreamOptions(5, "seed", digest))
    digest.go.set()
    with pytest.raises(RuntimeError, match="the reference failed"):
        made.result()
