"""``--plot FILE.png``: the exact distribution against the ideal one (matplotlib, in the
optional extra ``fairvec[analysis]``).

The biases are often 1e-16 of a probability, invisible next to the probability itself,
so the figure has two panels: the probabilities (exact bars, promised line) and, below,
the exact relative deviation (exact / promised - 1) of each outcome, computed with
fractions and only then turned into floats. Crash and Overgo are drawn as what a player
meets: the exact return of cashing out at each target against the document's 1 - edge.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from fairvec.analysis.exact import Distribution
from fairvec.analysis.outcomes import Options, cashout_return, crash_table
from fairvec.errors import FairvecError
from fairvec.reference import casino

EDGES = {"casino.crash": casino.CRASH_EDGE, "casino.overgo": casino.OVERGO_EDGE}
MAX_BARS = 120  # beyond this the probability panel draws a line, not bars


def pyplot() -> Any:
    try:  # matplotlib: the optional 'analysis' extra (0.8 s to import)
        # matplotlib: the optional 'analysis' extra (0.8 s to import)
        import matplotlib

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise FairvecError(
            "--plot needs matplotlib: pip install 'fairvec[analysis]'"
        ) from None
    return plt


def plot(target: str, distribution: Distribution, options: Options, path: Path) -> None:
    if path.suffix.lower() != ".png":
        raise FairvecError(f"--plot {path}: the plot is a PNG file; name it FILE.png")
    plt = pyplot()
    if target in EDGES:
        figure = returns_figure(plt, target, EDGES[target])
    else:
        figure = distribution_figure(plt, distribution)
    save(figure, path)
    plt.close(figure)


def save(figure: Any, path: Path) -> None:
    """Render to a temporary name beside ``path`` and rename (never half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial.png")
    try:
        figure.savefig(temporary, dpi=110)
        temporary.replace(path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise FairvecError(f"--plot {path}: cannot write it: {error.strerror}") from None


def distribution_figure(plt: Any, distribution: Distribution) -> Any:
    keys = distribution.outcomes()
    positions = range(len(keys))
    exact = [float(distribution.probability(key)) for key in keys]
    promised = [float(distribution.promised(key)) for key in keys]
    deviation = [
        float(distribution.bias(key) / distribution.promised(key))
        if distribution.ideal.get(key) else 0.0
        for key in keys
    ]
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                         gridspec_kw={"height_ratios": [1, 1]})
    figure.suptitle(distribution.title, fontsize=11)
    if len(keys) <= MAX_BARS:
        top.bar(positions, exact, color="#4c72b0", label="exact")
    else:
        top.plot(positions, exact, color="#4c72b0", linewidth=0.8, label="exact")
    top.step(positions, promised, where="mid", color="#dd8452", linewidth=1.5,
             label="promised by the document")
    top.set_ylabel("probability")
    top.legend(loc="lower right", fontsize=9, framealpha=0.95)
    colours = ["#c44e52" if value < 0 else "#55a868" for value in deviation]
    bottom.bar(positions, deviation, color=colours, width=1.0 if len(keys) > MAX_BARS else 0.8)
    bottom.axhline(0.0, color="#dd8452", linewidth=1.5)
    bottom.set_ylabel("exact / promised - 1")
    bottom.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
    outside = [index for index, key in enumerate(keys) if not distribution.ideal.get(key)]
    if outside:  # one label for every outcome the document does not promise
        names = keys[outside[0]] if len(outside) == 1 else f"{keys[outside[0]]}-{keys[outside[-1]]}"
        total = sum((distribution.probability(keys[index]) for index in outside), Fraction(0))
        bottom.annotate(f"{names}: not promised (p = {float(total):.2e})", (outside[0], 0.0),
                        textcoords="offset points", xytext=(-120, 25), fontsize=8,
                        arrowprops={"arrowstyle": "->"})
    step = max(1, len(keys) // 20)
    bottom.set_xticks(list(positions)[::step], keys[::step], rotation=45, fontsize=8)
    bottom.set_xlabel(f"outcome ({distribution.inputs})")
    figure.tight_layout()
    return figure


def returns_figure(plt: Any, target: str, edge: float) -> Any:
    """Exact return t x P(multiplier >= t) at every multiplier that occurs, against 1 - edge."""
    cents, _ = crash_table(edge)
    targets = sorted({c for c in cents if c >= 101})
    returns = [float(cashout_return(edge, c)) for c in targets[:: max(1, len(targets) // 4000)]]
    shown = targets[:: max(1, len(targets) // 4000)]
    figure, axes = plt.subplots(figsize=(10, 5))
    axes.plot([c / 100 for c in shown], returns, color="#4c72b0", linewidth=0.8,
              label="exact return of cashing out at t")
    axes.axhline(1 - edge, color="#dd8452", linewidth=1.5,
                 label=f"the return a fixed {edge:.0%} edge would give: {1 - edge:g}")
    axes.set_xscale("log")
    axes.set_xlabel("cash-out target t (a multiplier that occurs)")
    axes.set_ylabel("return per unit bet")
    axes.set_title(f"{target}: exact return by target over the 2^64 byte strings", fontsize=11)
    axes.legend(loc="upper right", fontsize=9)
    figure.tight_layout()
    return figure
