"""What a fuzz run prints: each mismatch as a spec case ready to paste, and a summary."""

from __future__ import annotations

import json
from typing import Any, TextIO

import yaml

from fairvec.fuzz.engine import OUT_OF_TIME, Judged, Mismatch, Outcome
from fairvec.fuzz.oracle import ReferenceFailure


class _Dumper(yaml.SafeDumper):
    """Block style for the document, flow style for the input (as the specs write it)."""


def _flow_mapping(dumper: yaml.SafeDumper, data: _Flow) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", dict(data), flow_style=True)


class _Flow(dict[str, Any]):
    pass


_Dumper.add_representer(_Flow, _flow_mapping)


def _string(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """Text with characters YAML folds or drops when unquoted (NEL, the line and paragraph
    separators, a BOM, controls) goes in double quotes, where the emitter escapes them."""
    style = '"' if any(_needs_escape(c) for c in data) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _needs_escape(character: str) -> bool:
    code = ord(character)
    return code < 0x20 or 0x7F <= code < 0xA0 or character in "\u2028\u2029\ufeff\ufffe\uffff"


_Dumper.add_representer(str, _string)


def spec_path(algorithm: str) -> str:
    family, name = algorithm.split(".", 1)
    return f"spec/{family}/{name}.yaml"


def mismatch_document(mismatch: Mismatch, seed: str) -> dict[str, Any]:
    """One mismatch: where it was found, what differs, and the spec case to add."""
    shown = mismatch.shrunk or mismatch.found
    drawn = shown.drawn
    document: dict[str, Any] = {
        "algorithm": drawn.algorithm,
        "found": f"fairvec fuzz --seed {seed}, {drawn.algorithm} input {drawn.index}"
        + (f", shrunk in {mismatch.shrink_attempts} attempts" if mismatch.shrunk else ""),
        "differs": shown.result.message,
        "expected": shown.expected,
        "got": shown.result.got if shown.result.got is not None else {"adapter": "no answer"},
        "paste_into": f"{spec_path(drawn.algorithm)}, under cases:",
        "case": spec_case(shown, seed),
    }
    if mismatch.shrunk:
        document["original_input"] = _Flow(mismatch.found.drawn.input)
    return document


def spec_case(judged: Judged, seed: str) -> dict[str, Any]:
    """The spec case: fairvec generate computes its expected value from the reference,
    so the case carries only the input (and the error code, for an input rejected)."""
    drawn = judged.drawn
    case: dict[str, Any] = {
        "name": f"fuzz-{seed}-{drawn.index}",
        "tags": ["fuzz"],
        "comment": f"found by fairvec fuzz --seed {seed} ({', '.join(drawn.how)})"
        + (", shrunk" if drawn.label else ""),
    }
    if drawn.variant is not None:
        case["variants"] = [drawn.variant]
    case["input"] = _Flow(drawn.input)
    if "error" in judged.expected:
        case["error"] = judged.expected["error"]
    return case


def dump_yaml(document: dict[str, Any]) -> str:
    text: str = yaml.dump(
        document, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100_000
    )
    return text


def write_mismatches(out: TextIO, mismatches: list[Mismatch], seed: str, limit: int) -> None:
    for mismatch in mismatches[:limit]:
        out.write("---\n")
        out.write(dump_yaml(mismatch_document(mismatch, seed)))
    if len(mismatches) > limit:
        out.write(f"# ... and {len(mismatches) - limit} more mismatch(es) (raise --max-details)\n")


def write_reference_failures(out: TextIO, failures: list[ReferenceFailure]) -> None:
    for failure in failures[:5]:
        shown = json.dumps(failure.input, ensure_ascii=False)
        shown = shown if len(shown) <= 300 else shown[:297] + "..."
        variant = f" ({failure.variant})" if failure.variant else ""
        out.write(
            f"fairvec: the reference broke on {failure.algorithm}{variant}: {failure.error}; "
            f"input {shown}\n"
        )
    if len(failures) > 5:
        out.write(f"fairvec: ... and {len(failures) - 5} more reference failure(s)\n")


def write_summary(out: TextIO, outcome: Outcome) -> None:
    width = max([len("algorithm"), *(len(name) for name in outcome.tallies)])
    out.write(
        f"{'algorithm':<{width}}  {'tried':>7}  {'invalid':>7}  {'skipped':>7}  "
        f"{'unjudged':>8}  mismatches\n"
    )
    total_tried = total_mismatches = 0
    for name, tally in outcome.tallies.items():
        out.write(
            f"{name:<{width}}  {tally.tried:>7}  {tally.invalid:>7}  {tally.skipped:>7}  "
            f"{tally.unjudged:>8}  {tally.mismatches}\n"
        )
        total_tried += tally.tried
        total_mismatches += tally.mismatches
    rate = total_tried / outcome.seconds if outcome.seconds > 0 else 0.0
    ending = " (stopped by --seconds)" if outcome.stopped_by_time else ""
    unjudged = f"; {len(outcome.unjudged)} not judged" if outcome.unjudged else ""
    out.write(
        f"{total_tried} inputs over {len(outcome.tallies)} algorithms in {outcome.seconds:.1f} s "
        f"({rate:.0f}/s){ending}; {total_mismatches} mismatch(es){unjudged}\n"
    )
    left_out = sum(tally.left_out for tally in outcome.tallies.values())
    if left_out:
        out.write(
            f"{left_out} invalid input(s) left out (--valid-only): the port's input checks "
            "were not fuzzed\n"
        )
    write_unjudged(out, outcome)


UNJUDGED_SHOWN = 10  # ids listed per reason; the rest are counted


def write_unjudged(out: TextIO, outcome: Outcome) -> None:
    """The inputs drawn but not judged, never a port's mismatch: those --seconds left in
    flight (by id: the replay line draws them again), and those the adapter gave no answer
    to within --timeout (with the input: an input the port is slow on)."""
    late = [one for one in outcome.unjudged if one.reason == OUT_OF_TIME]
    slow = [one for one in outcome.unjudged if one.reason != OUT_OF_TIME]
    if late:
        ids = ", ".join(one.id for one in late[:UNJUDGED_SHOWN])
        more = f", and {len(late) - UNJUDGED_SHOWN} more" if len(late) > UNJUDGED_SHOWN else ""
        out.write(f"not judged: {OUT_OF_TIME} (--seconds): {len(late)} input(s): {ids}{more}\n")
    if slow:
        out.write(
            f"not judged: slow (no answer within --timeout, the adapter was killed): "
            f"{len(slow)} input(s)\n"
        )
        for one in slow[:UNJUDGED_SHOWN]:
            shown = json.dumps(one.input, ensure_ascii=False)
            shown = shown if len(shown) <= 300 else shown[:297] + "..."
            out.write(f"  {one.id} {shown}\n")
        if len(slow) > UNJUDGED_SHOWN:
            out.write(f"  ... and {len(slow) - UNJUDGED_SHOWN} more\n")
