"""Reports of a run: the human summary, JSON (schemas/report.schema.json) and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from fairvec.jsonio import write_atomically
from fairvec.runner.results import STATUSES, Result

FORMAT = "fairvec-report/1"
SHOWN_JSON = 400  # characters of an input or output shown in the human summary


@dataclass(frozen=True)
class RunInfo:
    suite_version: str
    vectors_digest: str
    adapter_name: str
    adapter_version: str
    command: list[str]
    started_at: str
    duration_seconds: float
    restarts: int


def counts(results: list[Result]) -> dict[str, int]:
    counted = Counter(result.status for result in results)
    summary = {status: counted.get(status, 0) for status in STATUSES}
    summary["total"] = len(results)
    summary["known_failures"] = sum(result.known_failure for result in results)
    summary["unexpected_passes"] = sum(result.unexpected_pass for result in results)
    return summary


def is_success(results: list[Result]) -> bool:
    return not any(
        (result.status in ("fail", "error") and not result.known_failure) or result.unexpected_pass
        for result in results
    )


def write_human(stream: TextIO, info: RunInfo, results: list[Result], max_details: int) -> None:
    problems = [r for r in results if _needs_attention(r)]
    for result in problems[:max_details]:
        _write_detail(stream, result)
    if len(problems) > max_details:
        stream.write(f"... and {len(problems) - max_details} more (see --json or --junit)\n\n")
    known = [r for r in results if r.known_failure]
    if known:
        stream.write(f"{len(known)} known failure(s) still fail, as listed.\n")
    stream.write(
        f"fairvec {info.suite_version}, vectors {info.vectors_digest}\n"
        f"adapter {info.adapter_name} {info.adapter_version} ({' '.join(info.command)}), "
        f"{info.duration_seconds:.2f}s, {info.restarts} restart(s)\n"
    )
    summary = counts(results)
    stream.write(
        f"{summary['pass']} passed, {summary['fail']} failed, {summary['error']} errors, "
        f"{summary['skip']} skipped\n"
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
    stream.write(f"  {result.message}\n")
    stream.write(f"  input:    {_short(result.vector['input'])}\n")
    stream.write(f"  expected: {_short(result.vector['expected'])}\n")
    if result.got is not None:
        stream.write(f"  got:      {_short(result.got)}\n")
    for line in result.stderr:
        stream.write(f"  stderr:   {line}\n")
    stream.write("\n")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_JSON else text[:SHOWN_JSON] + " ..."


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
        "success": is_success(results),
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
    }
    if result.status != "pass":
        entry["message"] = result.message
        entry["expected"] = result.vector["expected"]
        if result.got is not None:
            entry["got"] = result.got
        if result.stderr:
            entry["stderr"] = result.stderr
    return entry


def write_json(path: Path, info: RunInfo, results: list[Result]) -> None:
    text = json.dumps(json_report(info, results), indent=1, ensure_ascii=False) + "\n"
    write_atomically(path, text)


def write_junit(path: Path, info: RunInfo, results: list[Result]) -> None:
    """One <testsuite> per algorithm, one <testcase> per vector. JUnit has no 'expected
    failure', so a known failure is reported as skipped, with the reason."""
    root = ET.Element("testsuites", name=f"fairvec {info.suite_version}")
    by_algorithm: dict[str, list[Result]] = {}
    for result in results:
        by_algorithm.setdefault(result.algorithm, []).append(result)
    for algorithm, group in by_algorithm.items():
        summary = counts(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=algorithm,
            tests=str(len(group)),
            failures=str(sum(1 for r in group if _junit_kind(r) == "failure")),
            errors=str(sum(1 for r in group if _junit_kind(r) == "error")),
            skipped=str(summary["skip"] + summary["known_failures"]),
        )
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="vectors_digest", value=info.vectors_digest)
        ET.SubElement(
            properties,
            "property",
            name="adapter",
            value=f"{info.adapter_name} {info.adapter_version}",
        )
        for result in group:
            _junit_case(suite, result)
    ET.indent(root)
    write_atomically(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def _junit_kind(result: Result) -> str | None:
    if result.unexpected_pass:
        return "failure"
    if result.known_failure or result.status == "skip":
        return "skipped"
    return {"fail": "failure", "error": "error"}.get(result.status)


def _junit_case(suite: ET.Element, result: Result) -> None:
    case = ET.SubElement(suite, "testcase", name=result.id, classname=result.algorithm)
    kind = _junit_kind(result)
    if kind is None:
        return
    if result.unexpected_pass:
        message = "listed as a known failure but passes now: remove it from the list"
    elif result.known_failure:
        message = f"known failure: {result.message}"
    else:
        message = result.message
    element = ET.SubElement(case, kind, message=message)
    if kind != "skipped":
        element.text = (
            f"input: {json.dumps(result.vector['input'], ensure_ascii=False)}\n"
            f"expected: {json.dumps(result.vector['expected'], ensure_ascii=False)}\n"
            f"got: {json.dumps(result.got, ensure_ascii=False)}\n"
            + "".join(f"stderr: {line}\n" for line in result.stderr)
        )
