"""--known-failures matching (runner/known_failures.py): the index finds the same entry as
trying every glob in file order, and tries only the globs an id could match. Issue 34: a
list of 200,000 globs of one algorithm each took 84 s, as every id of that algorithm was
matched against every glob; benchmarks/known_failures.py gives the seconds, this test
counts the globs tried."""

from __future__ import annotations

import fnmatch
import random

from fairvec.runner.known_failures import KnownFailureIndex
from fairvec.runner.results import KnownFailure

IDS = [
    *(f"casino.mines/random-{n}@hex-text" for n in range(40)),
    *(f"stake.dice/edge-{n}" for n in range(40)),
    "casino.mines/[odd]-1",
    "stake.dice/x]y",
]


def entries(globs: list[str]) -> list[KnownFailure]:
    return [KnownFailure(glob, "", line) for line, glob in enumerate(globs, 1)]


def first_listing(globs: list[str], vector_id: str) -> int | None:
    """The line of the first entry that lists ``vector_id``: every glob tried in order."""
    for line, glob in enumerate(globs, 1):
        if fnmatch.fnmatchcase(vector_id, glob):
            return line
    return None


def test_one_algorithms_many_globs_are_not_each_tried_on_every_id() -> None:
    globs = [f"casino.mines/*-{n}" for n in range(10_000)]
    index = KnownFailureIndex(entries(globs))
    found = index.find("casino.mines/random-7@hex-text")
    assert found is None
    # before: all 10,000 globs of the same literal start were tried (and compiled)
    assert index.globs_tried == 0
    found = index.find("casino.mines/*-7")  # (ids never hold '*'; any text is looked up)
    assert found is not None and found.line == 8
    assert index.globs_tried <= 2


def test_globs_with_an_inner_literal_or_a_class_are_indexed_too() -> None:
    inner = [f"stake.dice/*-{n}-*" for n in range(5_000)]
    classes = [f"stake.dice/*{n}[0-9]" for n in range(5_000)]
    index = KnownFailureIndex(entries(inner + classes))
    found = index.find("stake.dice/edge-123-b")
    assert found is not None and found.entry == "stake.dice/*-123-*"
    assert index.globs_tried <= 10  # the globs whose key the id holds, not 10,000


def test_the_index_finds_what_trying_every_glob_in_order_finds() -> None:
    pieces = ["*", "?", "[0-9]", "[!a]", "[]x]", "-1", "-2", "random", "edge", "@hex-text",
              "[", "]", "o"]  # fmt: skip
    draw = random.Random(34)
    globs = []
    for _ in range(600):
        start = draw.choice(["casino.mines/", "stake.dice/", "stake.", "casino.mines/random-", ""])
        globs.append(start + "".join(draw.choice(pieces) for _ in range(draw.randint(1, 4))))
    globs += ["casino.mines/random-3@hex-text", "stake.dice/x]y", "casino.mines/[[]odd]-1"]
    index = KnownFailureIndex(entries(globs))
    for vector_id in IDS:
        found = index.find(vector_id)
        assert (found.line if found else None) == first_listing(globs, vector_id), vector_id
