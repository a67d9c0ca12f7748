"""``fairvec report --html FILE REPORT.json...``: one self-contained page from run reports.

First a matrix of algorithms (rows) by adapter run (columns, told apart where one port
ran several ways), each run's verdict above, each cell the run's pass, fail, error, skip
and not-run counts, coloured by the worst of them, linking to that cell's failures; then
what fails a run; then the runs; last the known failures, folded (a port may list hundreds:
listed first, they once pushed the matrix 5,000 pixels down). Each failure is a <details>
element holding its tags, input, expected, got and first difference. No script at all
(<details> and links need none), no external asset, and a Content-Security-Policy that
forbids both, so even a page an escaping bug had broken could not run code or reach the
network.

Everything a report holds may come from a hostile adapter: every string is stripped of
terminal escapes and control characters (report.printable), cut to a stated size, then
HTML-escaped (html.escape, quotes included) before it is placed in the page. The standard
library does all of this; a template engine would add a dependency for a page this small.
"""

from __future__ import annotations

import argparse
import html
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.jsonio import first_difference, json_equal, read_json, write_atomically
from fairvec.regular_files import check_not_an_input, check_not_special
from fairvec.runner.accumulated_run import Accumulated
from fairvec.runner.report import printable
from fairvec.vectorfiles import default_vectors_root, load_vector_files, vectors_digest

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Shown

SHOWN_TEXT = 200  # characters of a name, version, message or warning shown
SHOWN_HEADLINE = 120  # characters of a failure's message shown before it is opened
SHOWN_VALUE = 2000  # characters of an input, expected or got shown
SHOWN_STDERR_LINES = 40  # stderr lines shown for one failure
SHOWN_FAILURES = 100  # failures shown in full per cell; the rest are counted
COUNTED = ("pass", "fail", "error", "skip", "not-run")  # the order a cell lists them
# A cell's colour is its worst outcome (known failures apart from new ones).
SEVERITY = ("fail", "error", "not-run", "unexpected", "known", "pass", "skip")


@dataclass(frozen=True)
class Run:
    """One validated JSON report, and the file it came from."""

    path: Path
    data: dict[str, Any]

    @property
    def results(self) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = self.data["results"]
        return results


# -- the command ---------------------------------------------------------------------------


def add_report_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = commands.add_parser(
        "report",
        help="turn JSON run reports into one HTML page",
        description="Render one or more `fairvec run --json` reports as one self-contained "
        "HTML page: algorithms by adapter, every failure with its input, expected, got and "
        "first difference.",
    )
    report.add_argument(
        "--html", type=Path, required=True, metavar="FILE", help="the page to write"
    )
    report.add_argument(
        "--vectors",
        type=Path,
        metavar="DIR",
        help="where the failures' inputs are looked up (default: the installed vectors)",
    )
    report.add_argument("reports", type=Path, nargs="+", metavar="REPORT.json")
    report.set_defaults(handler=report_command)


def report_command(arguments: argparse.Namespace) -> int:
    check_not_special(arguments.html, "--html")  # before the reports are read
    read = [("the report", path) for path in arguments.reports]
    check_not_an_input(arguments.html, "--html", read)
    runs = [load_run(path) for path in arguments.reports]
    root: Path = arguments.vectors or default_vectors_root()
    page = render(runs, Suite.read(root, runs))
    write_atomically(arguments.html, page)
    algorithms = len({result["algorithm"] for run in runs for result in run.results})
    print(f"wrote {arguments.html} ({len(runs)} report(s), {algorithms} algorithm(s))")
    return 0


@cache
def report_schema() -> dict[str, Any]:
    text = resources.files("fairvec.runner").joinpath("schemas", "report.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def load_run(path: Path) -> Run:
    """A JSON report, validated against runner/schemas/report.schema.json; a bad one is a
    one-line error naming the file and the place."""
    # start-up: jsonschema, 35 ms; only this command needs it, not `fairvec --help`
    import jsonschema

    data = read_json(path, "a fairvec JSON report")
    validator = jsonschema.Draft202012Validator(report_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message = _cut(error.message, SHOWN_TEXT)
        raise FairvecError(
            f"{path}: {at}: {message} (not a `fairvec run --json` report of this version)"
        )
    return Run(path, data)


# -- the inputs the reports do not carry ---------------------------------------------------


@dataclass(frozen=True)
class Suite:
    """The vectors the failures' inputs are looked up in, and whether each run's vectors
    are exactly these (its digest says so)."""

    root: Path
    vectors: dict[str, Shown]  # by id

    @classmethod
    def read(cls, root: Path, runs: list[Run]) -> Suite:
        wanted = {result["algorithm"] for run in runs for result in run.results}
        files = load_vector_files(root, wanted.__contains__)
        vectors: dict[str, Shown] = {
            vector["id"]: vector for file in files for vector in file.vectors
        }
        for file in files:  # the accumulated vectors, as the runner digests them
            for entry in file.accumulated:
                vectors[entry["id"]] = Accumulated(entry, file.algorithm).vector
        return cls(root, vectors)

    def matches(self, run: Run) -> bool:
        """Whether this suite holds exactly the vectors the run ran (same digest: the
        runner digests the fixed vectors, then the accumulated ones)."""
        from_suite = [result for result in run.results if not result.get("fresh")]
        if any(result["id"] not in self.vectors for result in from_suite):
            return False
        vectors = [self.vectors[result["id"]] for result in from_suite]
        vectors.sort(key=lambda vector: "accumulated" in vector["tags"])
        return vectors_digest(vectors) == str(run.data["vectors_digest"])

    def input_of(self, result: dict[str, Any]) -> Any:
        """The vector's input, when the suite's vector of that id is the one the run judged
        (same expectation); None otherwise."""
        if "input" in result:  # a report that carries its inputs
            return result["input"]
        vector = self.vectors.get(result["id"])
        if vector is None or not json_equal(vector["expected"], result.get("expected")):
            return None
        return vector["input"]


# -- the page ------------------------------------------------------------------------------

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.5em; margin: 0 0 .3em; }
h2 { font-size: 1.2em; margin: 1.5em 0 .5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #c8c8c8; padding: .35em .6em; vertical-align: top; }
thead th { background: #f0f0f0; }
th.algorithm { text-align: left; font-family: ui-monospace, monospace; font-weight: normal; }
td.cell { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.cell a { color: inherit; }
td.pass { background: #cfeccf; } td.skip, td.absent { background: #ececec; color: #555; }
td.fail, td.error, td.not-run, td.unexpected { background: #f6c4c4; }
td.known { background: #fbe3b0; }
td.verdict { text-align: center; font-weight: bold; } td.verdict a { color: inherit; }
th small { font-weight: normal; overflow-wrap: anywhere; }
.runs td { font-size: .9em; max-width: 28em; overflow-wrap: anywhere; }
.warning { color: #8a4b00; }
details { margin: .25em 0; border-left: 4px solid #d66; padding-left: .5em; }
details.known { border-color: #d9a400; }
details.known-entries, details.known-failures { border-color: #d9a400; }
summary { cursor: pointer; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
dl { margin: .4em 0 .8em; } dt { font-weight: bold; margin-top: .3em; }
dd { margin-left: 1em; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere;
      background: #f7f7f7; padding: .3em; font-size: .9em; }
:target { outline: 3px solid #4a7bd0; }
"""


def render(runs: list[Run], suite: Suite) -> str:
    algorithms = sorted({result["algorithm"] for run in runs for result in run.results})
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            # no script, no request of any kind: only the inline style below
            '<meta http-equiv="Content-Security-Policy" '
            "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>fairvec report</title>",
            f"<style>{STYLE}</style></head><body>",
            "<h1>fairvec report</h1>",
            # what a CI owner looks for first: the matrix and what fails the runs; then
            # who ran what, and the known failures, folded (a port may list hundreds)
            _matrix(runs, algorithms),
            _failures(runs, algorithms, suite),
            _runs_table(runs, suite),
            _known_failures(runs, algorithms, suite),
            "</body></html>",
            "",
        ]
    )


def _runs_table(runs: list[Run], suite: Suite) -> str:
    """Who ran what: one row per report, with its suite and the verdict."""
    rows = []
    for number, run in enumerate(runs, 1):
        data = run.data
        summary = data["summary"]
        warnings = "".join(
            f'<div class="warning">warning: {_text(warning)}</div>' for warning in data["warnings"]
        )
        note = (
            ""
            if suite.matches(run)
            else (
                f'<div class="warning">the inputs shown come from {_text(str(suite.root))}, '
                "whose vectors are not exactly the ones this run used</div>"
            )
        )
        verdict, css = _verdict(data)
        rows.append(
            f'<tr id="run{number}"><td>{number}</td><td>{_adapter(run)}'
            f"<br><code>{_text(_command(data))}</code></td>"
            f"<td>{_text(run.path.name)}</td>"
            f"<td>{_suite(data)}</td>"
            f"<td>{_text(data['started_at'])}, {data['duration_seconds']:g}s, "
            f"{data['restarts']} restart(s){_selection_line(data)}</td>"
            f'<td class="{css}">{verdict}: {summary["pass"]} of {summary["total"]} passed'
            f"{_marks(summary)}{_known_entries(data)}{warnings}{note}</td></tr>"
        )
    return (
        '<h2>Runs</h2><table class="runs"><thead><tr><th>#</th><th>adapter</th><th>report</th>'
        "<th>suite</th><th>run</th><th>verdict</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _suite(data: dict[str, Any]) -> str:
    """The attestation's suite: which one, from where, signed by whom; the digest of all
    its vectors and of those selected; and the runner's version."""
    attested = data["attestation"]
    suite = attested["suite"]
    origin = {"release": "verified release", "installed": "installed", "folder": "folder"}
    signer = f"<br>signed by {_text(suite['signer'])}" if suite["signer"] is not None else ""
    return (
        f"suite {_text(suite['version'])} ({origin[suite['source']]} "
        f"{_text(suite['location'])}, {suite['vectors']} vectors){signer}"
        f"<br>all: <code>{_text(suite['digest'])}</code>"
        f"<br>selected: <code>{_text(data['vectors_digest'])}</code>"
        f"<br>fairvec {_text(attested['runner']['version'])}"
    )


def _verdict(data: dict[str, Any]) -> tuple[str, str]:
    """The run's verdict and its colour: a run green only because its failures are all
    listed as known says so, in the known failures' colour (it passes, with debts)."""
    if not data["success"]:
        return "FAILED", "fail"
    known = data["summary"]["known_failures"]
    if known:
        return f"success with {known} known failure(s)", "known"
    return "success", "pass"


def _marks(summary: dict[str, Any]) -> str:
    """What the counts alone do not say: known failures (counted as failed, yet the run
    passes) and unexpected passes (counted as passed, yet the run fails)."""
    marks = []
    if summary["known_failures"]:
        marks.append(f"{summary['known_failures']} known failure(s) (listed: not failing the run)")
    if summary["unexpected_passes"]:
        marks.append(
            f"{summary['unexpected_passes']} unexpected pass(es) (listed as known failures: "
            "failing the run)"
        )
    return "".join(f"<br>{mark}" for mark in marks)


def _known_entries(data: dict[str, Any]) -> str:
    """The --known-failures entries with their reasons and what became of them: folded,
    as a port may list hundreds (an entry a vector), except those with vectors that pass
    now (the list wants them removed)."""
    entries = data["attestation"]["known_failures"]
    if not entries:
        return ""
    lines = [_known_entry(known) for known in entries]
    passing = [line for line, known in zip(lines, entries, strict=True) if known["passing"]]
    still = sum(known["still_failing"] for known in entries)
    plural = "entry" if len(entries) == 1 else "entries"
    return (
        "".join(passing) + f'<details class="known-entries"><summary>{len(entries)} '
        f"known-failure {plural}: {still} still fail, "
        f"{sum(known['passing'] for known in entries)} pass</summary>{''.join(lines)}</details>"
    )


def _known_entry(known: dict[str, Any]) -> str:
    reason = f" # {_text(known['reason'])}" if known["reason"] else " (no reason given)"
    return (
        f'<div class="known-entry">known failure <code>{_text(known["entry"])}</code>'
        f"{reason}: {known['still_failing']} still fail, {known['passing']} pass, "
        f"{known['not_checked']} not checked</div>"
    )


def _adapter(run: Run) -> str:
    adapter = run.data["adapter"]
    return f"{_text(adapter['name'])} {_text(adapter['version'])}"


def _command(data: dict[str, Any]) -> str:
    return " ".join(data["adapter"]["command"])


def _selection_flags(data: dict[str, Any]) -> list[str]:
    """The run's selection as the options that made it (``--exclude-tag slow``)."""
    selection = data["attestation"]["selection"]
    flags = {"algorithm": "--algorithm", "keyword": "-k", "tag": "--tag"}
    flags["exclude_tag"] = "--exclude-tag"
    return [f"{flags[key]} {value}" for key in flags for value in selection[key]]


def _selection_line(data: dict[str, Any]) -> str:
    flags = _selection_flags(data)
    return f"<br>selected by <code>{_text(' '.join(flags))}</code>" if flags else ""


def _telling_apart(run: Run, runs: list[Run]) -> list[str]:
    """What tells this run from the others of the same adapter name and version (one port
    run three ways read "php-casino-engine 0.1" three times): the words of its command
    and the selection options that differ, whether it had known failures listed, and
    when it started. Nothing for an adapter run once."""
    data = run.data
    same = [other.data for other in runs if _named(other.data) == _named(data)]
    if len(same) < 2:
        return []
    parts = []
    commands = [other["adapter"]["command"] for other in same]
    if any(command != data["adapter"]["command"] for command in commands):
        common = set.intersection(*(set(command) for command in commands))
        differing = [word for word in data["adapter"]["command"] if word not in common]
        parts.append(" ".join(differing) or _command(data))
    selections = [_selection_flags(other) for other in same]
    if any(flags != _selection_flags(data) for flags in selections):
        common = set.intersection(*(set(flags) for flags in selections))
        differing = [flag for flag in _selection_flags(data) if flag not in common]
        parts.append(" ".join(differing) or "no other filter")
    listed = [len(other["attestation"]["known_failures"]) for other in same]
    if len(set(listed)) > 1:
        entries = len(data["attestation"]["known_failures"])
        parts.append(f"{entries} known-failure entries" if entries else "no known failures listed")
    parts.append(f"started {data['started_at'][:19].replace('T', ' ')}")
    return parts


def _named(data: dict[str, Any]) -> tuple[str, str]:
    return data["adapter"]["name"], data["adapter"]["version"]


def _matrix(runs: list[Run], algorithms: list[str]) -> str:
    heads = "".join(
        f'<th scope="col">{_adapter(run)}<br><small><a href="#run{number}">#{number}</a> '
        f"{_text(run.path.name)}</small>"
        + "".join(f"<br><small>{_text(part, 80)}</small>" for part in _telling_apart(run, runs))
        + "</th>"
        for number, run in enumerate(runs, 1)
    )
    rows = []
    for algorithm in algorithms:
        cells = "".join(
            _cell(
                _anchors(number, algorithms, algorithm),
                [r for r in run.results if r["algorithm"] == algorithm],
                run.data["attestation"]["algorithms"].get(algorithm),
            )
            for number, run in enumerate(runs, 1)
        )
        rows.append(f'<tr><th scope="row" class="algorithm">{_text(algorithm)}</th>{cells}</tr>')
    verdicts = "".join(
        f'<td class="verdict {css}"><a href="#run{number}">{verdict}</a></td>'
        for number, (verdict, css) in enumerate(map(_verdict, (run.data for run in runs)), 1)
    )
    return (
        '<h2>Algorithms by adapter</h2><table class="matrix"><thead><tr><th>algorithm</th>'
        f'{heads}</tr><tr><th scope="row" class="algorithm">verdict</th>{verdicts}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _claim_lines(attested: dict[str, Any]) -> list[str]:
    """A partial claim or a pin, marked in the cell: such a pass is not a full one."""
    lines = []
    judged = attested.get("outputs_judged", "all")  # (reports of older runs have none)
    if judged != "all":
        lines.append(_text(f"PARTIAL: {', '.join(judged)} only"))
    per_variant = attested.get("pinned_variants") or {}  # (older reports: none)
    if attested.get("pinned") or per_variant:
        pinned = [(name, value) for name, value in (attested.get("pinned") or {}).items()]
        pinned += [
            (f"{name} @{variant}", value)
            for variant, fields in per_variant.items()
            for name, value in fields.items()
        ]
        values = ", ".join(f"{name} = {_short(value)}" for name, value in pinned)
        fresh = attested.get("fresh_vectors", 0)
        lines.append(_text(f"pinned: {values}" + (f" ({fresh:,} fresh)" if fresh else "")))
    return lines


def _short(value: Any) -> str:
    """A pinned value in a cell: a long text by its two ends."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 16 else f"{text[:6]}...{text[-4:]}"


def _cell(
    anchors: tuple[str, str], results: list[dict[str, Any]], attested: dict[str, Any] | None
) -> str:
    """A run's counts for one algorithm; an empty cell says whether the algorithm was left
    out by the selection or is not in the suite that run used. A cell with unexpected
    results links to them; one whose failures are all known, to those (folded below)."""
    if not results:
        absent = "not selected" if attested is not None else "not in this suite"
        return f'<td class="cell absent">{absent}</td>'
    counted = Counter(result["status"] for result in results)
    lines = [f"{counted[status]} {status}" for status in COUNTED if counted[status]]
    if attested is not None:  # why the skips were skipped
        lines += [f"({n} {why})" for why, n in attested["skipped"].items() if n]
        lines += _claim_lines(attested)
    known = sum(result["known_failure"] for result in results)
    unexpected = sum(result["unexpected_pass"] for result in results)
    if known:
        lines.append(f"({known} known)")
    if unexpected:
        lines.append(f"{unexpected} unexpected pass")
    text = "<br>".join(lines)
    unexpected_anchor, known_anchor = anchors
    if any(_unexpected(result) for result in results):
        text = f'<a href="#{unexpected_anchor}">{text}</a>'
    elif any(_known(result) for result in results):
        text = f'<a href="#{known_anchor}">{text}</a>'
    return f'<td class="cell {_worst(results)}">{text}</td>'


def _kind(result: dict[str, Any]) -> str:
    if result["unexpected_pass"]:
        return "unexpected"
    if result["known_failure"] and result["status"] in ("fail", "error"):
        return "known"
    return str(result["status"])


def _worst(results: list[dict[str, Any]]) -> str:
    kinds = {_kind(result) for result in results}
    return next(kind for kind in SEVERITY if kind in kinds)


def _shown_as_failure(result: dict[str, Any]) -> bool:
    return result["status"] in ("fail", "error", "not-run") or result["unexpected_pass"]


def _known(result: dict[str, Any]) -> bool:
    """A failure listed as known: shown folded, apart from what fails the run."""
    return _shown_as_failure(result) and _kind(result) == "known"


def _unexpected(result: dict[str, Any]) -> bool:
    """A new failure, an error, a vector not run, or an unexpected pass."""
    return _shown_as_failure(result) and _kind(result) != "known"


def _anchor(number: int, algorithms: list[str], algorithm: str, prefix: str = "r") -> str:
    # numbers only: an algorithm id from a report is not trusted inside an attribute
    return f"{prefix}{number}-a{algorithms.index(algorithm)}"


def _anchors(number: int, algorithms: list[str], algorithm: str) -> tuple[str, str]:
    """A cell's two targets: its unexpected results, and its known failures."""
    return _anchor(number, algorithms, algorithm), _anchor(number, algorithms, algorithm, "k")


def _failures(runs: list[Run], algorithms: list[str], suite: Suite) -> str:
    """The results that fail a run (new failures and errors first, then vectors not run
    and unexpected passes, each kind in vector order), by run and algorithm."""
    parts = ["<h2>Unexpected results</h2>"]
    parts += _listed(runs, algorithms, suite, _unexpected, "r")
    if len(parts) == 1:
        parts.append("<p>None.</p>")
    return "\n".join(parts)


def _known_failures(runs: list[Run], algorithms: list[str], suite: Suite) -> str:
    """The failures listed as known, folded: they do not fail a run, and a port may list
    hundreds (they once pushed the matrix 5,000 pixels down)."""
    count = sum(_known(result) for run in runs for result in run.results)
    if not count:
        return ""
    listed = "\n".join(_listed(runs, algorithms, suite, _known, "k"))
    return (
        f'<h2>Known failures</h2><details class="known-failures"><summary>{count} known '
        f"failure(s), listed by the runs' --known-failures: they do not fail a run</summary>"
        f"\n{listed}\n</details>"
    )


def _listed(
    runs: list[Run],
    algorithms: list[str],
    suite: Suite,
    chosen: Callable[[dict[str, Any]], bool],
    prefix: str,
) -> list[str]:
    """The ``chosen`` results of each run and algorithm: a heading each (the cells' link
    target), then the first SHOWN_FAILURES in full, the rest counted."""
    parts = []
    for number, run in enumerate(runs, 1):
        for algorithm in algorithms:
            failed = [r for r in run.results if r["algorithm"] == algorithm and chosen(r)]
            if not failed:
                continue
            failed.sort(key=lambda result: SEVERITY.index(_kind(result)))  # (stable)
            parts.append(
                f'<h3 id="{_anchor(number, algorithms, algorithm, prefix)}">{_text(algorithm)}, '
                f"{_adapter(run)} (#{number}): {len(failed)}</h3>"
            )
            parts.extend(_detail(result, suite) for result in failed[:SHOWN_FAILURES])
            if len(failed) > SHOWN_FAILURES:
                parts.append(
                    f"<p>... and {len(failed) - SHOWN_FAILURES} more: see "
                    f"{_text(run.path.name)}</p>"
                )
    return parts


def _detail(result: dict[str, Any], suite: Suite) -> str:
    kind = _kind(result)
    label = {"unexpected": "UNEXPECTED PASS", "known": "KNOWN FAILURE"}.get(
        kind, str(result["status"]).upper()
    )
    message = result.get("message", "")
    if result["unexpected_pass"]:
        message = "listed as a known failure but passes now: remove it from the list"
    fields = [("message", _text(message))] if message else []
    tags = _tags(result, suite)
    if tags:  # a quirk tag names the rule the vector checks (docs/tags.md)
        fields.append(("tags", f"<code>{_text(', '.join(tags))}</code>"))
    given = suite.input_of(result)
    fields.append(
        (
            "input",
            _value(given)
            if given is not None
            else f"<em>not in the vectors at {_text(str(suite.root))}</em>",
        )
    )
    if "expected" in result:
        fields.append(("expected", _value(result["expected"])))
    if "got" in result:
        fields.append(("got", _value(result["got"])))
        where = first_difference(result.get("expected"), result["got"])
        if where:
            fields.append(("first difference", f"<code>{_text(where)}</code>"))
    elif "got_excerpt" in result:
        fields.append(
            ("got (the start of it)", f"<pre>{_text(result['got_excerpt'], SHOWN_VALUE)}</pre>")
        )
    stderr = result.get("stderr", [])
    if stderr:
        lines = [printable(line) for line in stderr[:SHOWN_STDERR_LINES]]
        fields.append(("stderr", f"<pre>{_text(chr(10).join(lines), SHOWN_VALUE)}</pre>"))
    body = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields)
    css = "known" if kind == "known" else "problem"
    headline = f": {_text(message, SHOWN_HEADLINE)}" if message else ""
    tagged = f" [{_text(', '.join(tags), SHOWN_HEADLINE)}]" if tags else ""
    return (
        f'<details class="{css}"><summary>{label} {_text(result["id"])}{tagged}{headline}'
        f"</summary><dl>{body}</dl></details>"
    )


def _tags(result: dict[str, Any], suite: Suite) -> list[str]:
    """The vector's tags: the report's (a failure carries them), else the suite's (an
    unexpected pass does not)."""
    if "tags" in result:
        return [str(tag) for tag in result["tags"]]
    vector = suite.vectors.get(result["id"])
    return [] if vector is None else [str(tag) for tag in vector["tags"]]


def _value(value: Any) -> str:
    text = json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)
    return f"<pre>{_text(text, SHOWN_VALUE)}</pre>"


def _text(text: str, limit: int = SHOWN_TEXT) -> str:
    """Hostile text made safe to show: terminal escapes and control characters out, cut
    to ``limit`` characters, then escaped for HTML (text and attribute values alike)."""
    return html.escape(_cut(printable(text), limit), quote=True)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
