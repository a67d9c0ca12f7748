"""The two field generators the tenhou specs added: concat and permutation."""

from __future__ import annotations

import pytest

from fairvec.input_draws import Stream, draw


def test_concat_joins_parts_in_order() -> None:
    parts = [{"const": "mt19937ar-sha512-n288-base64,"}, {"base64": 6}]
    value = draw(Stream("t/concat"), {"concat": parts})
    assert value.startswith("mt19937ar-sha512-n288-base64,")
    assert len(value) == len("mt19937ar-sha512-n288-base64,") + 8
    # the parts draw from the stream in order, exactly as drawing them one by one
    stream = Stream("t/concat")
    assert value == "mt19937ar-sha512-n288-base64," + draw(stream, {"base64": 6})


def test_concat_refuses_non_strings() -> None:
    with pytest.raises(ValueError, match="must draw a string"):
        draw(Stream("t"), {"concat": [{"const": "a"}, {"int": [1, 2]}]})


def test_permutation_is_deterministic_and_complete() -> None:
    first = draw(Stream("t/permutation"), {"permutation": 136})
    assert sorted(first) == list(range(136))
    assert first == draw(Stream("t/permutation"), {"permutation": 136})
    assert first != list(range(136))
    assert draw(Stream("t"), {"permutation": 1}) == [0]


def test_permutation_is_fisher_yates_from_the_top() -> None:
    stream, mirror = Stream("t/fy"), Stream("t/fy")
    items = list(range(5))
    for i in range(4, 0, -1):
        j = mirror.below(i + 1)
        items[i], items[j] = items[j], items[i]
    assert draw(stream, {"permutation": 5}) == items
