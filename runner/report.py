"""Reports of a run: the human summary, JSON (schemas/report.schema.json) and JUnit XML.

Whatever an adapter said is quoted, never trusted: what reports quote of its output is cut
to a bounded size, and the terminal and the XML get it with control characters (ANSI
colour codes included) removed or escaped, so no adapter can break a report.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from fairvec import __version__
from fairvec.jsonio import write_atomically
from fairvec.runner.results import (
    KNOWN_FAILURE,
    SKIP_REASONS,
    STATUSES,
    UNEXPECTED_PASS,
    KnownFailure,
    Result,
    Tally,
    hello_skip_reason,
    skip_reason,
    with_status_or_unexpected,
)

if TYPE_CHECKING:  # imported where the XML is written: not every run writes it
    import xml.etree.ElementTree as ET

FORMAT = "fairvec-report/1"
FAILED = frozenset({"fail", "error"})
FAILING = FAILED | {"not-run"}  # what fails a run, unless a known failure
SHOWN_JSON = 400  # characters of an input or output shown whole in the human summary
# A longer object is shown field by field, each long value cut to SHOWN_FIELD characters
# on its own, so a short field after a long one (Tenhou's hand after its 3,328-character
# seed) is still shown; SHOWN_MOST bounds the whole line (an adapter's object of a
# thousand keys).
SHOWN_FIELD = 120
SHOWN_MOST = 4 * SHOWN_JSON
GOT_KEPT = 64 * 1024  # characters of an adapter's output kept whole in the reports
# ANSI escape sequences (colours, cursor moves): dropped, they only mean something to a
# terminal. Then every character XML 1.0 forbids, and the C0/C1 controls a terminal acts
# on, is written as a visible \uXXXX escape.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


class SuiteSource(NamedTuple):  # (not a dataclass: see runner/results.py)
    """Which suite the vectors were selected from: a verified release, the installed suite
    or a folder. ``digest`` covers every vector of it (the signed one for a release), so
    two reports with the same digest drew from the same vectors."""

    version: str
    digest: str
    vectors: int
    source: str  # "release", "installed" or "folder"
    location: str  # the archive, or the folder
    signer: str | None = None  # the release's signer, as the trusted key names it


class Coverage(NamedTuple):
    """What the attestation says beyond the results: what was asked for and declared."""

    suite: SuiteSource
    declared: dict[str, list[str]]  # the adapter's hello: algorithm -> variants
    algorithms: list[str]  # every algorithm of the suite, selected or not
    selection: dict[str, list[str]]  # the options that chose the vectors
    known_failures: list[KnownFailure]
    # the port's claims as runner/claims.py attested them: pinned, outputs, fresh
    claims: dict[str, Any]
    # the accumulated streams drawn at run time (runner/fresh_streams.py): seed, cases,
    # each stream's id and cases; None when none was made
    fresh_streams: dict[str, Any] | None = None


class RunInfo(NamedTuple):
    suite_version: str
    vectors_digest: str
    adapter_name: str
    adapter_version: str
    command: list[str]
    started_at: str  # ISO 8601, UTC, with its offset
    duration_seconds: float
    restarts: int
    coverage: Coverage
    hostname: str
    warnings: list[str]
    success: bool | None  # the run's verdict when it is more than is_success()


def printable(text: str) -> str:
    """``text`` safe for a terminal and for XML: ANSI sequences dropped, control
    characters, lone surrogates and non-characters escaped."""
    return _UNPRINTABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", _ANSI.sub("", text))


def counts(tally: Tally) -> dict[str, int]:
    counted = tally.statuses
    summary = {status.replace("-", "_"): counted.get(status, 0) for status in STATUSES}
    summary["total"] = tally.total
    summary["known_failures"] = len(tally.known_failures())
    summary["unexpected_passes"] = len(tally.unexpected_passes())
    return summary


def is_success(results: list[Result], tally: Tally) -> bool:
    """``tally``: the results' (as every function here that takes one)."""
    if not any(tally.statuses[status] for status in FAILING) and not tally.unexpected_passes():
        return True  # (the usual run: nothing to look at one by one)
    return not any(
        (result.status in ("fail", "error") and not result.known_failure)
        or result.unexpected_pass
        or result.status == "not-run"
        for result in with_status_or_unexpected(results, FAILING)
    )


# -- the coverage attestation ---------------------------------------------------------------


def algorithm_coverage(
    algorithm: str, counted: Counter[str], marked: list[Result], coverage: Coverage
) -> dict[str, Any]:
    """What was and was not checked of one algorithm: every selected vector is counted
    exactly once, as run (passed, failed or errored), not run, or skipped for a reason.
    ``counted``: its results' statuses; ``marked``: those of its results that carry a mark
    (Tally)."""
    skipped = _skip_reasons(counted["skip"], marked, algorithm, coverage.declared)
    return {
        "declared": algorithm in coverage.declared,
        "variants_declared": coverage.declared.get(algorithm),
        "selected": sum(counted.values()),
        "run": counted["pass"] + counted["fail"] + counted["error"],
        "passed": counted["pass"],
        "failed": counted["fail"],
        "errored": counted["error"],
        "not_run": counted["not-run"],
        "skipped": {reason: skipped[reason] for reason in SKIP_REASONS},
        "known_failures": sum(map(KNOWN_FAILURE, marked)),
        "unexpected_passes": sum(map(UNEXPECTED_PASS, marked)),
        # the port's claims (runner/claims.py): what was pinned, and which output fields
        # were judged ("all", or the fields of a partial claim: never a full pass)
        "pinned": coverage.claims["pinned"].get(algorithm),
        "pinned_variants": _variant_pins(coverage, algorithm),
        "fresh_vectors": _fresh_count(coverage, algorithm),
        "outputs_judged": coverage.claims["outputs"].get(algorithm, "all"),
    }


def _skip_reasons(
    skips: int, marked: list[Result], algorithm: str, declared: dict[str, list[str]]
) -> Counter[str]:
    """How many of the ``skips`` (of ``algorithm``) were skipped for each reason. The
    hello decided all but the marked ones (an answer of unsupported, a claim's skip), so
    the others are counted without a look at each (12,000 of them in a run of the whole
    suite by a port of three families)."""
    own = [
        result
        for result in marked
        if result.status == "skip" and (result.answered_unsupported or result.skip_kind)
    ]
    reasons = Counter(skip_reason(result, declared) for result in own)
    if skips > len(own):
        reasons[hello_skip_reason(algorithm, declared)] += skips - len(own)
    return reasons


def _variant_pins(coverage: Coverage, algorithm: str) -> dict[str, Any] | None:
    """variant -> field -> value, the pins of one variant only (runner/claims.py,
    ALGORITHM@VARIANT); None when there are none."""
    prefix = f"{algorithm}@"
    own = {
        key.removeprefix(prefix): fields
        for key, fields in coverage.claims["pinned"].items()
        if key.startswith(prefix)
    }
    return own or None


def _fresh_count(coverage: Coverage, algorithm: str) -> int:
    fresh = coverage.claims["fresh"]
    return int(fresh["vectors"].get(algorithm, 0)) if fresh else 0


def known_failure_entries(coverage: Coverage, results: list[Result]) -> list[dict[str, Any]]:
    """Each --known-failures entry with its reason and what became of the vectors it
    lists in this run (a vector counts for the first entry that lists it)."""
    entries = []
    for known in coverage.known_failures:
        listed = [result for result in results if result.known is known]
        entries.append(
            {
                "entry": known.entry,
                "reason": known.reason,
                "line": known.line,
                "still_failing": sum(result.known_failure for result in listed),
                "passing": sum(result.unexpected_pass for result in listed),
                "not_checked": sum(result.status in ("skip", "not-run") for result in listed),
            }
        )
    return entries


def attestation(info: RunInfo, results: list[Result], tally: Tally) -> dict[str, Any]:
    """The report's statement of exactly what was and was not checked."""
    coverage = info.coverage
    by_algorithm: dict[str, Counter[str]] = {name: Counter() for name in coverage.algorithms}
    by_algorithm.update(tally.by_algorithm)
    suite = coverage.suite
    return {
        "runner": {"name": "fairvec", "version": __version__},
        "suite": {
            "version": suite.version,
            "digest": suite.digest,
            "vectors": suite.vectors,
            "source": suite.source,
            "location": suite.location,
            "signer": suite.signer,
        },
        "adapter": {
            "name": info.adapter_name,
            "version": info.adapter_version,
            "algorithms": coverage.declared,
        },
        "selection": coverage.selection,
        "known_failures": known_failure_entries(coverage, results),
        "claims": coverage.claims,
        "fresh_streams": coverage.fresh_streams,
        "algorithms": {
            name: algorithm_coverage(name, counted, tally.marked_of(name), coverage)
            for name, counted in sorted(by_algorithm.items())
        },
    }


# -- the terminal --------------------------------------------------------------------------


def write_human(
    stream: TextIO,
    info: RunInfo,
    results: list[Result],
    max_details: int,
    tally: Tally,
) -> None:
    problems = [r for r in _failed_or_unexpected(results, tally) if _needs_attention(r)]
    for result in problems[:max_details]:
        _write_detail(stream, result)
    if len(problems) > max_details:
        stream.write(f"... and {len(problems) - max_details} more (see --json or --junit)\n\n")
    known = tally.known_failures()
    if known:
        stream.write(f"{len(known)} known failure(s) still fail, as listed.\n")
    _write_known_entries(stream, info, results)
    for warning in info.warnings:
        stream.write(f"warning: {printable(warning)}\n")
    _write_coverage(stream, info, results, tally)
    command = printable(" ".join(info.command))
    stream.write(
        f"fairvec {__version__}, vectors {info.vectors_digest}\n"
        f"{_suite_line(info.coverage.suite)}\n"
        f"adapter {printable(info.adapter_name)} {printable(info.adapter_version)} ({command}), "
        f"{info.duration_seconds:.2f}s, {info.restarts} restart(s)\n"
    )
    stream.write(closing_line(counts(tally)) + "\n")


def closing_line(summary: dict[str, int]) -> str:
    """The counts, and what makes the exit status what it is when the counts alone do
    not: known failures (counted among the failed or errors, yet the run passes) and
    unexpected passes (counted among the passed, yet the run fails)."""
    not_run = f", {summary['not_run']} not run" if summary["not_run"] else ""
    line = (
        f"{summary['pass']} passed, {summary['fail']} failed, {summary['error']} errors, "
        f"{summary['skip']} skipped{not_run}"
    )
    marks = []
    if summary["known_failures"]:
        marks.append(
            f"{summary['known_failures']} known failure(s) among them, listed: not failing "
            "the run"
        )
    if summary["unexpected_passes"]:
        marks.append(
            f"{summary['unexpected_passes']} unexpected pass(es), listed as known failures: "
            "failing the run"
        )
    return line + "".join(f"; {mark}" for mark in marks)


def _failed_or_unexpected(results: list[Result], tally: Tally) -> list[Result]:
    """The results that failed or errored, and the unexpected passes, in order."""
    if not (tally.statuses["fail"] or tally.statuses["error"] or tally.unexpected_passes()):
        return []  # (the usual run: no pass over the results)
    return with_status_or_unexpected(results, FAILED)


def _suite_line(suite: SuiteSource) -> str:
    where = printable(suite.location)
    if suite.source == "release":
        signer = printable(suite.signer or "no signer")
        origin = f"verified release {where}, signed by {signer}"
    else:
        origin = f"{suite.source} {where}"
    return f"suite {suite.version} {suite.digest} ({suite.vectors} vectors; {origin})"


def _write_known_entries(stream: TextIO, info: RunInfo, results: list[Result]) -> None:
    entries = known_failure_entries(info.coverage, results)
    if not entries:
        return
    stream.write("known failures listed:\n")
    for entry in entries:
        reason = f"  # {printable(entry['reason'])}" if entry["reason"] else "  (no reason given)"
        stream.write(
            f"  {printable(entry['entry'])}{reason}: {entry['still_failing']} still fail, "
            f"{entry['passing']} pass, {entry['not_checked']} not checked\n"
        )


def _write_coverage(stream: TextIO, info: RunInfo, results: list[Result], tally: Tally) -> None:
    """The attestation in brief: how many algorithms were selected and fully run, and a
    line for each one of which something selected was not run (the JSON has them all)."""
    algorithms = attestation(info, results, tally)["algorithms"]
    selected = {name: entry for name, entry in algorithms.items() if entry["selected"]}
    partial = {name: entry for name, entry in selected.items() if entry["run"] < entry["selected"]}
    stream.write(
        f"coverage: {len(selected)} of {len(algorithms)} algorithm(s) selected, "
        f"{len(selected) - len(partial)} with every selected vector run\n"
    )
    undeclared = [name for name, entry in partial.items() if _only_undeclared(entry)]
    if undeclared:  # one line, not one per algorithm the adapter never claimed
        families = Counter(name.split(".", 1)[0] for name in undeclared)
        listed = ", ".join(f"{family} ({count})" for family, count in sorted(families.items()))
        stream.write(
            f"  {len(undeclared)} algorithm(s) the adapter does not declare, skipped: "
            f"{printable(listed)}\n"
        )
    _write_claims(stream, info.coverage, selected)
    for name, entry in partial.items():
        if name in undeclared:
            continue
        skipped = ", ".join(f"{n} {reason}" for reason, n in entry["skipped"].items() if n)
        not_run = f", {entry['not_run']} not run" if entry["not_run"] else ""
        stream.write(
            f"  {printable(name)}: {entry['run']} of {entry['selected']} run"
            f"{not_run}{f', skipped: {skipped}' if skipped else ''}\n"
        )


def _write_claims(stream: TextIO, coverage: Coverage, selected: dict[str, Any]) -> None:
    """A line for each algorithm run on pinned inputs, or judged on part of its output."""
    fresh = coverage.claims["fresh"]
    for name, entry in selected.items():
        pinned, judged = entry["pinned"], entry["outputs_judged"]
        per_variant = entry.get("pinned_variants") or {}
        if pinned or per_variant:
            said = [(f"{field} = ", value) for field, value in (pinned or {}).items()]
            said += [
                (f"{field} (@{variant}) = ", value)
                for variant, fields in per_variant.items()
                for field, value in fields.items()
            ]
            values = ", ".join(f"{field}{json.dumps(value)[:70]}" for field, value in said)
            made = (
                f", {entry['fresh_vectors']:,} of them fresh (seed {fresh['seed']})"
                if fresh
                else ""
            )
            stream.write(
                f"  {printable(name)}: pinned {printable(values)}: {entry['run']:,} vector(s) "
                f"run on it{made}\n"
            )
        if judged != "all":
            stream.write(
                f"  {printable(name)}: PARTIAL: only {', '.join(map(printable, judged))} judged "
                "(the adapter computes no other output field)\n"
            )


def _only_undeclared(entry: dict[str, Any]) -> bool:
    skipped = {reason: n for reason, n in entry["skipped"].items() if n}
    return entry["run"] == 0 and not entry["not_run"] and set(skipped) == {"algorithm-not-declared"}


def _needs_attention(result: Result) -> bool:
    return result.unexpected_pass or (
        result.status in ("fail", "error") and not result.known_failure
    )


def _write_detail(stream: TextIO, result: Result) -> None:
    label = "UNEXPECTED PASS" if result.unexpected_pass else result.status.upper()
    tags = ", ".join(result.vector["tags"])
    stream.write(f"{label} {result.id}  [{tags}]\n")
    if result.unexpected_pass:
        stream.write("  listed as a known failure but passes now: remove it from the list\n\n")
        return
    stream.write(f"  {printable(result.message)}\n")
    stream.write(f"  input:    {_short(result.vector['input'])}\n")
    stream.write(f"  expected: {_short(result.vector['expected'])}\n")
    if result.got is not None:
        stream.write(f"  got:      {_short(result.got)}\n")
    for line in result.stderr:
        stream.write(f"  stderr:   {printable(line)}\n")
    stream.write("\n")


def _short(value: Any) -> str:
    """``value`` as JSON for the terminal: whole when short; an object field by field,
    each long value cut on its own (so every short field is seen); anything else cut."""
    text = _shown(value, SHOWN_JSON)
    return text if len(text) <= SHOWN_MOST else text[:SHOWN_MOST] + " ..."


def _shown(value: Any, limit: int) -> str:
    text = printable(json.dumps(value, ensure_ascii=False))
    if len(text) <= limit:
        return text
    if isinstance(value, dict) and value:
        return _shown_fields(value, limit)
    return text[:limit] + " ..."


def _shown_fields(value: dict[Any, Any], limit: int) -> str:
    """An object too long to show whole: its short fields whole, its long ones cut, each on
    its own, sharing what the short ones leave of ``limit`` (at least SHOWN_FIELD each)."""
    keys = {key: _shown(key, SHOWN_FIELD) for key in value}
    whole = {key: printable(json.dumps(item, ensure_ascii=False)) for key, item in value.items()}
    long = [key for key in value if len(whole[key]) > SHOWN_FIELD]
    used = sum(len(keys[key]) + 4 for key in value) + sum(
        len(whole[key]) for key in value if key not in long
    )
    share = max(SHOWN_FIELD, (limit - used) // max(len(long), 1))
    fields = (
        f"{keys[key]}: {_shown(item, share) if key in long else whole[key]}"
        for key, item in value.items()
    )
    return "{" + ", ".join(fields) + "}"


# -- JSON ----------------------------------------------------------------------------------


def json_report(info: RunInfo, results: list[Result], tally: Tally | None = None) -> dict[str, Any]:
    tally = Tally(results) if tally is None else tally
    return {
        "format": FORMAT,
        "suite_version": info.suite_version,
        "vectors_digest": info.vectors_digest,
        "adapter": {
            "name": info.adapter_name,
            "version": info.adapter_version,
            "command": info.command,
        },
        "started_at": info.started_at,
        "duration_seconds": round(info.duration_seconds, 3),
        "restarts": info.restarts,
        "summary": counts(tally),
        "success": is_success(results, tally) if info.success is None else info.success,
        "warnings": info.warnings,
        "attestation": attestation(info, results, tally),
        "results": [_result_entry(result, info.coverage.declared) for result in results],
    }


def _result_entry(result: Result, declared: dict[str, list[str]]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": result.id,
        "algorithm": result.algorithm,
        "variant": result.vector["variant"],
        "status": result.status,
        "known_failure": result.known_failure,
        "unexpected_pass": result.unexpected_pass,
        "seconds": round(result.seconds, 6),
    }
    if result.known is not None:
        entry["known_failure_entry"] = result.known.entry
        entry["known_failure_reason"] = result.known.reason
    fresh = result.vector.get("provenance", {}).get("fresh", False)
    if fresh:  # not in the suite: runner/claims.py, fairvec/fuzz/fresh.py
        entry["fresh"] = True
    if result.status != "pass":
        entry["message"] = result.message
    if result.status == "skip":
        entry["skip_reason"] = skip_reason(result, declared)
    if result.status not in ("pass", "skip"):
        entry["tags"] = result.vector.get("tags", [])
        if fresh:
            entry["input"] = result.vector["input"]
        # a skipped vector's expectation is in the vectors, and nobody reads it here: with
        # it, a run of a one-algorithm adapter over the whole suite wrote 20 MB of them
        entry["expected"] = result.vector["expected"]
        if result.got is not None:
            got_text = json.dumps(result.got, ensure_ascii=False)
            if len(got_text) <= GOT_KEPT:
                entry["got"] = result.got
            else:
                entry["got_excerpt"] = got_text[:GOT_KEPT] + f"... ({len(got_text)} characters)"
        if result.stderr:
            entry["stderr"] = result.stderr
    return entry


def write_json(path: Path, info: RunInfo, results: list[Result]) -> None:
    write_atomically(path, render_json(info, results))


def render_json(info: RunInfo, results: list[Result], tally: Tally | None = None) -> str:
    """The JSON report's text: strict JSON (RFC 8259), which jq, JSON.parse and every CI
    tool read. A number JSON cannot hold (NaN, an infinity) never reaches a report as a
    bare NaN or Infinity: the runner refuses such an answer as not JSON, and anything that
    still holds one is written as a string saying what it was."""
    report = json_report(info, results, tally)
    try:
        text = json.dumps(report, indent=1, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a non-finite float somewhere: said in words, not as bare NaN
        report = _finite(report)
        text = json.dumps(report, indent=1, ensure_ascii=False, allow_nan=False)
    if _UNPRINTABLE.search(text) and not _utf8_encodable(text):
        # a lone surrogate (from a vector or an adapter) has no UTF-8 form: escape all
        text = json.dumps(report, indent=1, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by a string naming it."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} (not a JSON number)"
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def _utf8_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- JUnit ---------------------------------------------------------------------------------


def write_junit(path: Path, info: RunInfo, results: list[Result]) -> None:
    write_atomically(path, render_junit(info, results))


def render_junit(info: RunInfo, results: list[Result], tally: Tally | None = None) -> str:
    """One <testsuite> per algorithm, one <testcase> per vector, valid under both the
    Jenkins (xunit junit-10.xsd) and the Ant (windyroad JUnit.xsd) schemas. JUnit has no
    'expected failure', so a known failure is reported as skipped, with the reason; a
    vector not run is an error (the run did not check it)."""
    import xml.etree.ElementTree as ET  # start-up: 2 ms of every run; only --junit needs it

    root = ET.Element("testsuites")  # Ant's schema allows it no attribute
    attested = attestation(info, results, Tally(results) if tally is None else tally)
    by_algorithm: dict[str, list[Result]] = {}
    for result in results:
        by_algorithm.setdefault(result.algorithm, []).append(result)
    # Ant's timestamp has no zone: the UTC time, as the report's started_at says
    timestamp = info.started_at[:19]
    times = suite_times(info.duration_seconds, list(by_algorithm.values()))
    for number, (algorithm, group) in enumerate(by_algorithm.items()):
        kinds = Counter(_junit_kind(result) for result in group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=printable(algorithm),
            package="fairvec",
            id=str(number),
            tests=str(len(group)),
            failures=str(kinds["failure"]),
            errors=str(kinds["error"]),
            skipped=str(kinds["skipped"]),
            time=f"{times[number]:.6f}",
            timestamp=timestamp,
            hostname=printable(info.hostname) or "localhost",
        )
        _junit_properties(ET.SubElement(suite, "properties"), info, attested, algorithm)
        for result in group:
            _junit_case(suite, result)
        ET.SubElement(suite, "system-out")
        ET.SubElement(suite, "system-err")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def suite_times(wall: float, groups: list[list[Result]]) -> list[float]:
    """Each <testsuite>'s time: the run's wall time (``wall``), shared among the suites
    (an algorithm each) in proportion to the adapter's time on their vectors, so that
    they add up to the run's time as a CI page shows it. A vector's own time is its time
    as the head (docs/adapter-protocol.md): adding those up would count -j's sessions
    twice, and leave out start-up and loading. (By vector count when nothing was timed.)"""
    weights = [sum(result.seconds for result in group) for group in groups]
    if not sum(weights):
        weights = [float(len(group)) for group in groups]
    total = sum(weights)
    return [wall * weight / total if total else 0.0 for weight in weights]


def _junit_properties(
    properties: ET.Element, info: RunInfo, attested: dict[str, Any], algorithm: str
) -> None:
    """The attestation, repeated in every <testsuite> (Ant's schema gives <testsuites> no
    properties): the run's as a whole, then this algorithm's counts."""
    suite = attested["suite"]
    _property(properties, "fairvec", __version__)
    _property(properties, "vectors_digest", info.vectors_digest)
    _property(properties, "adapter", f"{info.adapter_name} {info.adapter_version}")
    _property(properties, "suite.version", suite["version"])
    _property(properties, "suite.digest", suite["digest"])
    _property(properties, "suite.source", f"{suite['source']} {suite['location']}")
    if suite["signer"] is not None:
        _property(properties, "suite.signer", suite["signer"])
    declared = attested["algorithms"][algorithm]["variants_declared"]
    _property(properties, "adapter.declares", "no" if declared is None else json.dumps(declared))
    _property(properties, "selection", json.dumps(attested["selection"]))
    for known in attested["known_failures"]:
        reason = f"  # {known['reason']}" if known["reason"] else ""
        _property(properties, "known_failure", known["entry"] + reason)
    not_selected = [name for name, entry in attested["algorithms"].items() if not entry["selected"]]
    _property(properties, "algorithms.not_selected", " ".join(not_selected))
    for key, value in attested["algorithms"][algorithm].items():
        if key == "skipped":
            for reason, count in value.items():
                _property(properties, f"coverage.skipped.{reason}", str(count))
        elif key in ("pinned", "pinned_variants", "outputs_judged"):  # the claims, as JSON
            _property(properties, f"coverage.{key}", json.dumps(value))
        elif key not in ("declared", "variants_declared"):
            _property(properties, f"coverage.{key}", str(value))


def _property(properties: ET.Element, name: str, value: str) -> None:
    import xml.etree.ElementTree as ET  # start-up: see render_junit

    ET.SubElement(properties, "property", name=name, value=printable(value))


def _junit_kind(result: Result) -> str | None:
    if result.unexpected_pass:
        return "failure"
    if result.known_failure or result.status == "skip":
        return "skipped"
    return {"fail": "failure", "error": "error", "not-run": "error"}.get(result.status)


def _junit_case(suite: ET.Element, result: Result) -> None:
    import xml.etree.ElementTree as ET  # start-up: see render_junit

    case = ET.SubElement(
        suite,
        "testcase",
        name=printable(result.id),
        classname=printable(result.algorithm),
        time=f"{result.seconds:.6f}",
    )
    kind = _junit_kind(result)
    if kind is None:
        return
    if result.unexpected_pass:
        message = "listed as a known failure but passes now: remove it from the list"
    elif result.known_failure:
        reason = f" ({result.known.reason})" if result.known and result.known.reason else ""
        message = f"known failure{reason}: {result.message}"
    else:
        message = result.message
    element = ET.SubElement(case, kind, message=printable(message))
    if kind == "skipped":
        return
    element.set("type", "unexpected-pass" if result.unexpected_pass else result.status)
    got = json.dumps(result.got, ensure_ascii=False)
    if len(got) > GOT_KEPT:
        got = got[:GOT_KEPT] + f"... ({len(got)} characters)"
    element.text = printable(
        f"input: {json.dumps(result.vector['input'], ensure_ascii=False)}\n"
        f"expected: {json.dumps(result.vector['expected'], ensure_ascii=False)}\n"
        f"got: {got}\n" + "".join(f"stderr: {line}\n" for line in result.stderr)
    )
