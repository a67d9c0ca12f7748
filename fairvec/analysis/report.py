"""A distribution as text: one row per outcome (or the most biased ones), then the summary."""

from __future__ import annotations

from fractions import Fraction

from fairvec.analysis.exact import Distribution, decimal, ratio, scientific


def signed(value: Fraction) -> str:
    text = scientific(value)
    return text if text.startswith("-") or text == "0" else f"+{text}"


def count(value: int) -> str:
    """Counts up to 2^64 in full; the products of many draws (Plinko) in powers of ten."""
    return f"{value:,}" if value <= 1 << 64 else scientific(Fraction(value), 12)


def rows_to_show(distribution: Distribution, limit: int | None) -> list[str]:
    """Every outcome, or the ``limit`` most biased ones in their own order."""
    keys = distribution.outcomes()
    if limit is None or len(keys) <= limit:
        return keys
    ranked = sorted(keys, key=lambda key: abs(distribution.bias(key)), reverse=True)[:limit]
    chosen = set(ranked)
    return [key for key in keys if key in chosen]


def render_distribution(distribution: Distribution, limit: int | None) -> str:
    lines = [distribution.title, f"inputs: {distribution.inputs}, equally likely", "",
             "outcome | count | probability | promised | exact - promised"]
    keys = rows_to_show(distribution, limit)
    for key in keys:
        lines.append(
            f"{key} | {count(distribution.counts.get(key, 0))} | "
            f"{decimal(distribution.probability(key), 12)} | "
            f"{decimal(distribution.promised(key), 12)} | {signed(distribution.bias(key))}"
        )
    hidden = len(distribution.outcomes()) - len(keys)
    if hidden:
        lines.append(f"({hidden} outcomes with smaller biases not shown; --all shows every one)")
    key, bias = distribution.largest_bias()
    lines += ["", f"largest bias: {key} {signed(bias)} ({ratio(bias)})",
              f"total variation distance: {scientific(distribution.total_variation())}"]
    expected = distribution.expected_return()
    if expected is not None:
        lines.append(f"return: {decimal(expected, 9)}")
    lines += [f"note: {note}" for note in distribution.notes]
    return "\n".join(lines) + "\n"
