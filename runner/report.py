"""Reports of a run: the human summary, JSON (schemas/report.schema.json) and JUnit XML.

Whatever an adapter said is quoted, never trusted: what reports quote of its output is cut
to a bounded size, and the terminal and the XML get it with control characters (ANSI
colour codes included) removed or escaped, so no adapter can break a report.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from fairvec.jsonio import write_atomically
from fairvec.runner.results import STATUSES, Result

FORMAT = "fairvec-report/1"
SHOWN_JSON = 400  # characters of an input or output shown in the human summary
GOT_KEPT = 64 * 1024  # characters of an adapter's output kept whole in the reports
# ANSI escape sequences (colours, cursor moves): dropped, they only mean something to a
# terminal. Then every character XML 1.0 forbids, and the C0/C1 controls a terminal acts
# on, is written as a visible \uXXXX escape.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class RunInfo:
    suite_version: str
    vectors_digest: str
    adapter_name: str
    adapter_version: str
    command: list[str]
    started_at: str  # ISO 8601, UTC, with its offset
    duration_seconds: float
    restarts: int
    hostname: str = "localhost"
    warnings: list[str] = field(default_factory=list)
    success: bool | None = None  # the run's verdict when it is more than is_success()


def printable(text: str) -> str:
    """``text`` safe for a terminal and for XML: ANSI sequences dropped, control
    characters, lone surrogates and non-characters escaped."""
    return _UNPRINTABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", _ANSI.sub("", text))


def counts(results: list[Result]) -> dict[str, int]:
    counted = Counter(result.status for result in results)
    summary = {status.replace("-", "_"): counted.get(status, 0) for status in STATUSES}
    summary["total"] = len(results)
    summary["known_failures"] = sum(result.known_failure for result in results)
    summary["unexpected_passes"] = sum(result.unexpected_pass for result in results)
    return summary


def is_success(results: list[Result]) -> bool:
    return not any(
        (result.status in ("fail", "error") and not result.known_failure)
        or result.unexpected_pass
        or result.status == "not-run"
        for result in results
    )


# -- the terminal --------------------------------------------------------------------------


def write_human(stream: TextIO, info: RunInfo, results: list[Result], max_details: int) -> None:
    problems = [r for r in results if _needs_attention(r)]
    for result in problems[:max_details]:
        _write_detail(stream, result)
    if len(problems) > max_details:
        stream.write(f"... and {len(problems) - max_details} more (see --json or --junit)\n\n")
    known = [r for r in results if r.known_failure]
    if known:
        stream.write(f"{len(known)} known failure(s) still fail, as listed.\n")
    for warning in info.warnings:
        stream.write(f"warning: {printable(warning)}\n")
    command = printable(" ".join(info.command))
    stream.write(
        f"fairvec {info.suite_version}, vectors {info.vectors_digest}\n"
        f"adapter {printable(info.adapter_name)} {printable(info.adapter_version)} ({command}), "
        f"{info.duration_seconds:.2f}s, {info.restarts} restart(s)\n"
    )
    summary = counts(results)
    not_run = f", {summary['not_run']} not run" if summary["not_run"] else ""
    stream.write(
        f"{summary['pass']} passed, {summary['fail']} failed, {summary['error']} errors, "
        f"{summary['skip']} skipped{not_run}\n"
    )


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
    text = printable(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= SHOWN_JSON else text[:SHOWN_JSON] + " ..."


# -- JSON ----------------------------------------------------------------------------------


def json_report(info: RunInfo, results: list[Result]) -> dict[str, Any]:
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
        "summary": counts(results),
        "success": is_success(results) if info.success is None else info.success,
        "warnings": info.warnings,
        "results": [_result_entry(result) for result in results],
    }


def _result_entry(result: Result) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": result.id,
        "algorithm": result.algorithm,
        "variant": result.vector["variant"],
        "status": result.status,
        "known_failure": result.known_failure,
        "unexpected_pass": result.unexpected_pass,
        "seconds": round(result.seconds, 6),
    }
    if result.status != "pass":
        entry["message"] = result.message
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
    report = json_report(info, results)
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if _UNPRINTABLE.search(text) and not _utf8_encodable(text):
        # a lone surrogate (from a vector or an adapter) has no UTF-8 form: escape all
        text = json.dumps(report, indent=1, ensure_ascii=True)
    write_atomically(path, text + "\n")


def _utf8_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- JUnit ---------------------------------------------------------------------------------


def write_junit(path: Path, info: RunInfo, results: list[Result]) -> None:
    """One <testsuite> per algorithm, one <testcase> per vector, valid under both the
    Jenkins (xunit junit-10.xsd) and the Ant (windyroad JUnit.xsd) schemas. JUnit has no
    'expected failure', so a known failure is reported as skipped, with the reason; a
    vector not run is an error (the run did not check it)."""
    root = ET.Element("testsuites")  # Ant's schema allows it no attribute
    by_algorithm: dict[str, list[Result]] = {}
    for result in results:
        by_algorithm.setdefault(result.algorithm, []).append(result)
    # Ant's timestamp has no zone: the UTC time, as the report's started_at says
    timestamp = info.started_at[:19]
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
            time=f"{sum(result.seconds for result in group):.6f}",
            timestamp=timestamp,
            hostname=printable(info.hostname) or "localhost",
        )
        properties = ET.SubElement(suite, "properties")
        _property(properties, "fairvec", info.suite_version)
        _property(properties, "vectors_digest", info.vectors_digest)
        _property(properties, "adapter", f"{info.adapter_name} {info.adapter_version}")
        for result in group:
            _junit_case(suite, result)
        ET.SubElement(suite, "system-out")
        ET.SubElement(suite, "system-err")
    ET.indent(root)
    write_atomically(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def _property(properties: ET.Element, name: str, value: str) -> None:
    ET.SubElement(properties, "property", name=name, value=printable(value))


def _junit_kind(result: Result) -> str | None:
    if result.unexpected_pass:
        return "failure"
    if result.known_failure or result.status == "skip":
        return "skipped"
    return {"fail": "failure", "error": "error", "not-run": "error"}.get(result.status)


def _junit_case(suite: ET.Element, result: Result) -> None:
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
        message = f"known failure: {result.message}"
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
