"""``fairvec report --html``: the page built from real run reports, read back the way a
person sees it, through headless Chromium (Debian package ``chromium``; skipped, saying so,
where it is not installed).

One run is clean; the other comes from a hostile adapter: a name that closes a script
element, quotes and terminal colour codes in its version, a wrong output full of markup, a
100,000-character output, a crash with colour codes and markup on stderr, and a known
failure. Every count the test expects is taken from the JSON reports themselves.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support import HANG, fairvec, misbehaving

from fairvec.runner.html_report import SHOWN_FAILURES
from fairvec.vectorfiles import default_vectors_root

VECTORS = default_vectors_root()
CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None
)
HOSTILE_NAME = '</script><script>alert("name")</script>'
KNOWN_REASON = "rounds <b>half</b> up (issue 7)"
MARKUP = "</details></pre><script>alert(1)</script>\"'<b>bold</b>\x1b[31mred\x1b[0m"

# The adapter is tests/adapters/misbehaving.py, misbehaving on the vectors named on its
# command line as MODE:ID: markup (the move is MARKUP), huge (a move of 100,000 letters),
# crash (a panic written in markup and colour on stderr, then exit 1).
MODES = {"markup": "move-text", "huge": "huge-move", "crash": "say-crash"}
PANIC = "\x1b[31mpanic: </details><script>alert(2)</script>\x1b[0m"
DECLARED = {"battle.move": [], "battle.ticket": [], "battle.attack": []}


def vectors(algorithm: str) -> list[dict[str, Any]]:
    path = VECTORS / "battle" / f"{algorithm}.json"
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return found


def run_adapter(folder: Path, name: str, algorithms: list[str], *extra: str) -> Path:
    report = folder / f"{len(list(folder.glob('*.json')))}.json"
    selection = [part for algorithm in algorithms for part in ("--algorithm", algorithm)]
    modes = [word for word in extra if ":" in word and not word.startswith("-")]
    options = [word for word in extra if word not in modes]
    version = '1.0 "quoted" \x1b[1;31mbold red\x1b[0m'
    adapter = misbehaving(
        "--name", name, "--version", version, "--algorithms", json.dumps(DECLARED),
        "--move", MARKUP, "--say", PANIC,
        *(MODES[mode] + ":" + vector for mode, vector in (m.split(":", 1) for m in modes)),
    )  # fmt: skip
    done = fairvec(
        "run", *selection, *options, "--tier", "none", "--json", report, "--no-progress",
        *adapter,
    )  # fmt: skip
    assert done.status in (0, 1), done.stderr
    return report


class Page(HTMLParser):
    """What a browser's DOM holds: the elements seen, the matrix's cell texts, and each
    <details> element's text by its summary."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.matrix: list[list[str]] = []
        self.details: dict[str, str] = {}
        self._table = ""
        self._cell: list[str] | None = None
        self._details: list[str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag in ("a", "link", "img", "script", "iframe") and (
            found.get("href") or found.get("src")
        ):
            self.links.append(str(found.get("href") or found.get("src")))
        if tag == "table":
            self._table = str(found.get("class"))
        elif tag == "tr" and self._table == "matrix":
            self.matrix.append([])
        elif tag in ("td", "th") and self._table == "matrix":
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")
        elif tag == "details":
            self._details = []
        elif tag in ("dt", "dd", "summary") and self._details is not None:
            self._details.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.matrix[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = ""
        elif tag == "details" and self._details is not None:
            text = "".join(self._details).strip()
            self.details[text.split("\n", 1)[0]] = text
            self._details = None

    def handle_data(self, data: str) -> None:
        self._text.append(data)
        for sink in (self._cell, self._details):
            if sink is not None:
                sink.append(data)

    @property
    def text(self) -> str:
        return "".join(self._text)


def seen_by_chromium(page: Path, profile: Path) -> Page:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0 and "<body" in done.stdout, done.stderr[-2000:]
    parsed = Page()
    parsed.feed(done.stdout)
    return parsed


def result_tags(report: dict[str, Any], vector_id: str) -> list[str]:
    tags: list[str] = next(r for r in report["results"] if r["id"] == vector_id)["tags"]
    return tags


def expected_cell(report: dict[str, Any], algorithm: str) -> str:
    results = [r for r in report["results"] if r["algorithm"] == algorithm]
    attested = report["attestation"]["algorithms"].get(algorithm)
    if not results:
        return "not selected" if attested is not None else "not in this suite"
    lines = [
        f"{n} {status}"
        for status in ("pass", "fail", "error", "skip", "not-run")
        if (n := sum(r["status"] == status for r in results))
    ]
    lines += [f"({n} {why})" for why, n in attested["skipped"].items() if n]
    known = sum(r["known_failure"] for r in results)
    return "\n".join(lines + ([f"({known} known)"] if known else []))


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian package chromium) absent")
def test_the_page_shows_the_matrix_and_every_failure_safely(tmp_path: Path) -> None:
    moves, tickets = vectors("move"), vectors("ticket")
    answered = [vector["id"] for vector in moves if "output" in vector["expected"]]
    markup_id, huge_id = answered[0], answered[-1]
    crash_id = moves[len(moves) // 2]["id"]
    known_id = [vector["id"] for vector in tickets if "output" in vector["expected"]][-1]
    clean = run_adapter(tmp_path, "clean-port", ["battle.move", "battle.attack"])
    known = tmp_path / "known.txt"
    known.write_text(f"{known_id}  # {KNOWN_REASON}\n", encoding="utf-8")
    hostile = run_adapter(
        tmp_path, HOSTILE_NAME, ["battle.move", "battle.ticket"],
        "--known-failures", str(known),
        f"markup:{markup_id}", f"huge:{huge_id}", f"crash:{crash_id}", f"markup:{known_id}",
    )  # fmt: skip
    page = tmp_path / "out" / "report.html"
    done = fairvec("report", "--html", page, clean, hostile)
    assert done.status == 0, done.stderr
    assert done.stdout == f"wrote {page} (2 report(s), 3 algorithm(s))\n"
    source = page.read_text(encoding="utf-8")
    assert len(source) < 100_000  # the 100,000-character output is cut
    assert "Content-Security-Policy" in source and "http:" not in source and "https:" not in source

    seen = seen_by_chromium(page, tmp_path / "profile")
    assert "script" not in seen.tags  # nothing an adapter wrote became an element
    assert not {"b", "img", "iframe"} & set(seen.tags)
    assert all(link.startswith("#") and link[1:] in seen.ids for link in seen.links)
    assert seen.links  # the failing cells link to their failures
    assert "\x1b" not in seen.text and "bold red" in seen.text

    reports = [json.loads(path.read_text(encoding="utf-8")) for path in (clean, hostile)]
    for report in reports:  # the runs table carries each run's attestation
        suite = report["attestation"]["suite"]
        assert f"suite {suite['version']} ({suite['source']} {suite['location']}" in seen.text
        assert f"all: {suite['digest']}" in seen.text
        assert f"selected: {report['vectors_digest']}" in seen.text
    assert f"known failure {known_id} # {KNOWN_REASON}: 1 still fail, 0 pass" in seen.text
    header, verdicts, *rows = seen.matrix
    assert verdicts == ["verdict", "success", "FAILED"]
    assert header[1].startswith('clean-port 1.0 "quoted" bold red')
    assert header[2].startswith(f'{HOSTILE_NAME} 1.0 "quoted" bold red')
    algorithms = ["battle.attack", "battle.move", "battle.ticket"]
    assert [row[0] for row in rows] == algorithms
    for row, algorithm in zip(rows, algorithms, strict=True):
        assert row[1:] == [expected_cell(report, algorithm) for report in reports]

    problems = [r for r in reports[1]["results"] if r["status"] in ("fail", "error")]
    assert sorted(r["id"] for r in problems) == sorted([markup_id, huge_id, crash_id, known_id])
    # a summary reads "LABEL ID [TAGS]: message"
    failures = {summary: text for summary, text in seen.details.items() if " [" in summary}
    by_id = {
        word.rstrip(":"): text
        for summary, text in failures.items()
        for word in summary.split()[:3]
        if word.startswith("battle.")
    }
    assert set(by_id) == {r["id"] for r in problems} and len(failures) == len(problems)
    for result in problems:
        shown = by_id[result["id"]]
        vector = next(v for v in moves + tickets if v["id"] == result["id"])
        assert json.dumps(vector["input"], indent=1, sort_keys=True) in shown  # its input
        assert json.dumps(result["expected"], indent=1, sort_keys=True) in shown
    # shown as JSON text: markup as characters, colour codes as visible \u001b escapes
    assert f'"move": {json.dumps(MARKUP)}' in by_id[markup_id]
    assert "first difference\n.output.move" in by_id[markup_id]
    assert "got (the start of it)" in by_id[huge_id] and "A" * 3000 not in by_id[huge_id]
    assert "panic: </details><script>alert(2)</script>" in by_id[crash_id]  # as text
    known_tags = ", ".join(result_tags(reports[1], known_id))
    assert by_id[known_id].startswith(f"KNOWN FAILURE {known_id} [{known_tags}]: output differs")
    assert by_id[crash_id].startswith(f"ERROR {crash_id} [")


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_new_failures_are_shown_before_known_ones(tmp_path: Path) -> None:
    """More known failures in a cell than the page shows in full, and one new failure
    after them in vector order: the new one is shown, not counted among "... more"."""
    wrong = [vector["id"] for vector in vectors("move") if "output" in vector["expected"]]
    *known_ids, new_id = wrong
    assert len(known_ids) > SHOWN_FAILURES
    known = tmp_path / "known.txt"
    known.write_text("".join(f"{vector}  # {KNOWN_REASON}\n" for vector in known_ids), "utf-8")
    report = run_adapter(
        tmp_path, "port", ["battle.move"], "--known-failures", str(known),
        *(f"markup:{vector}" for vector in wrong),
    )  # fmt: skip
    page = tmp_path / "report.html"
    assert fairvec("report", "--html", page, report).status == 0
    parsed = Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    shown = [summary.split()[:2] for summary in parsed.details if " [" in summary]
    assert len(shown) == 1 + SHOWN_FAILURES  # the new one, then the known ones (folded)
    assert shown[0] == ["FAIL", new_id]
    assert all(words == ["KNOWN", "FAILURE"] for words in shown[1:])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "a fairvec JSON report is not valid JSON"),
        (b'{"format": "fairvec-report/1"}', "(top level): 'suite_version' is a required property"),
        (b"\xff\xfe", "is not UTF-8 text"),
        (None, "cannot read a fairvec JSON report"),
    ],
)
def test_a_bad_report_is_one_line_naming_it(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_bytes(content)
    page = tmp_path / "report.html"
    done = fairvec("report", "--html", page, bad)
    assert done.status == 2
    assert done.stderr.startswith(f"fairvec: error: {bad}") and done.stderr.count("\n") == 1
    assert message in done.stderr
    assert not page.exists()


def test_a_run_with_accumulated_vectors_is_recognised_as_the_suites(tmp_path: Path) -> None:
    """The runner digests the fixed vectors, then the accumulated ones: the page must too,
    or every report with streams in it would be flagged as from other vectors."""
    report = tmp_path / "streams.json"
    done = fairvec(
        "run", "--bundled", "python", "--algorithm", "battle.damage", "--json", report
    )
    assert done.status == 0, done.stdout + done.stderr
    ids = [result["id"] for result in json.loads(report.read_text(encoding="utf-8"))["results"]]
    assert "battle.damage/accumulated" in ids
    page = tmp_path / "page.html"
    assert fairvec("report", "--html", page, report).status == 0
    assert "not exactly the ones this run used" not in page.read_text(encoding="utf-8")


def test_a_ci_owner_sees_the_matrix_and_what_fails_first(tmp_path: Path) -> None:
    """Issue 36: the runs table and its known-failure entries came first (the matrix some
    5,000 pixels down), a run whose failures were all known was a green "success", one
    port's runs had identical column heads, and the failures' tags were left out. Now:
    the matrix, then what fails a run, then the runs, then the known failures, folded."""
    wrong = [vector["id"] for vector in vectors("move") if "output" in vector["expected"]][:3]
    known = tmp_path / "known.txt"
    known.write_text("".join(f"{vector}  # {KNOWN_REASON}\n" for vector in wrong), "utf-8")
    modes = [f"markup:{vector}" for vector in wrong]
    listed = run_adapter(tmp_path, "port", ["battle.move"], "--known-failures", str(known), *modes)
    plain = run_adapter(tmp_path, "port", ["battle.move"], "-k", "battle.move/", *modes)
    page = tmp_path / "report.html"
    assert fairvec("report", "--html", page, listed, plain).status == 0
    source = page.read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(source)

    order = ["<h2>Algorithms by adapter", "<h2>Unexpected results", "<h2>Runs", "<h2>Known"]
    assert [source.index(heading) for heading in order] == sorted(map(source.index, order))
    folded = source.index('<details class="known-failures">')
    assert source.index("KNOWN FAILURE") > folded  # every known failure inside the fold
    assert source.count(f"known failure <code>{wrong[0]}</code>") == 1  # an entry, folded
    assert source.index('<details class="known-entries">') < source.index(
        f"known failure <code>{wrong[0]}</code>"
    )

    header, verdicts, *_rows = parsed.matrix
    assert verdicts == ["verdict", "success with 3 known failure(s)", "FAILED"]
    assert '<td class="verdict known">' in source  # not the green of a clean run
    assert header[1] != header[2]  # the same port, told apart
    assert "-k battle.move/" in header[2] and "3 known-failure entries" in header[1]
    assert "no known failures listed" in header[2]

    report = json.loads(plain.read_text(encoding="utf-8"))
    summaries = [summary for summary in parsed.details if summary.startswith("FAIL ")]
    assert len(summaries) == len(wrong)  # the failures of the run without the list
    for summary, vector in zip(summaries, wrong, strict=True):  # each with its quirk tags
        tags = ", ".join(result_tags(report, vector))
        assert tags and summary.startswith(f"FAIL {vector} [{tags}]: output differs at .move")
