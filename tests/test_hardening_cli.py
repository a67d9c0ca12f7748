"""Issue 16, the command line's part: report paths that name a device or a FIFO, reports
written all or none, strict JSON reports, known-failures files from any editor and of
any size, hellos naming too much, and every optional extra checked before any work."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from support import FIRE, HANG, SPECIAL_KINDS, THREE, check_reports, fairvec, make_special

from fairvec import extras
from fairvec.errors import FairvecError
from fairvec.extras import ALGORITHMS_NEEDING
from fairvec.regular_files import read_regular, write_all_or_none
from fairvec.runner.known_failures import (
    MAX_LEADING_WILDCARDS,
    apply_known_failures,
    read_known_failures,
)
from fairvec.runner.report import Coverage, RunInfo, SuiteSource, render_json
from fairvec.runner.results import Result

PYTHON = ["--bundled", "python"]


def _one_line_error(done: Any, *parts: str) -> None:
    assert done.status == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for part in parts:
        assert part in done.stderr, done.stderr


# -- 1. report paths that are not files -----------------------------------------------------


def test_a_report_path_linked_to_a_device_is_refused_and_left_alone(tmp_path: Path) -> None:
    # A link to /dev/null stands for /dev/full: a device the report must never replace (the
    # link, not the device, is what a rename would replace, so the test harms nothing).
    device = tmp_path / "device.json"
    device.symlink_to(os.devnull)
    done = fairvec("run", *THREE, *PYTHON, "--json", device)
    _one_line_error(done, f"--json {device}", "character device", "regular file")
    assert device.is_symlink() and os.readlink(device) == os.devnull


def test_a_report_path_that_is_a_fifo_is_refused_before_the_run(tmp_path: Path) -> None:
    fifo = tmp_path / "junit.xml"
    os.mkfifo(fifo)
    done = fairvec("run", *THREE, *PYTHON, "--junit", fifo)
    _one_line_error(done, f"--junit {fifo}", "FIFO")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert "passed" not in done.stdout  # refused before the run, not after it


def test_json_dash_writes_the_report_to_stdout_and_the_summary_to_stderr() -> None:
    done = fairvec("run", *THREE, *PYTHON, "--tier", "none", "--json", "-")
    assert done.status == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["pass"] == 3
    assert "3 passed" in done.stderr
    refused = fairvec("run", *THREE, *PYTHON, "--junit", "-")
    _one_line_error(refused, "--junit -", "only the JSON report")


@pytest.mark.parametrize("command", ["html", "cases"])
def test_other_written_files_refuse_a_fifo(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    if command == "html":
        report = tmp_path / "r.json"
        made = fairvec("run", *THREE, *PYTHON, "--tier", "none", "--json", report)
        assert made.status == 0, made.stderr
        done = fairvec("report", "--html", fifo, report, timeout=HANG)
    else:
        done = fairvec("fuzz", "--algorithm", "battle.move", "--count", "1", "--cases", fifo,
                       *PYTHON, timeout=HANG)  # fmt: skip
    _one_line_error(done, str(fifo), "FIFO")
    assert stat.S_ISFIFO(fifo.stat().st_mode)


# -- 4. all reports or none -----------------------------------------------------------------


@pytest.fixture
def sigterm_raises() -> Iterator[None]:
    class Stopped(BaseException):
        pass

    def stop(_number: int, _frame: FrameType | None) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_signal_while_reports_are_written_waits_for_the_last_one(
    tmp_path: Path, sigterm_raises: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "report.json", tmp_path / "junit.xml"
    real_replace = os.replace
    renamed: list[str] = []

    def replace_then_signal(source: str, target: Path) -> None:
        real_replace(source, target)
        renamed.append(str(target))
        if len(renamed) == 1:  # SIGTERM between the two renames
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(os, "replace", replace_then_signal)
    with pytest.raises(BaseException) as stopped:
        write_all_or_none([(first, "{}\n", "--json"), (second, "<x/>\n", "--junit")])
    assert type(stopped.value).__name__ == "Stopped"  # delivered, once both were written
    assert first.read_text() == "{}\n" and second.read_text() == "<x/>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml", "report.json"]


def test_a_report_that_cannot_be_written_leaves_none_written(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    first, second = tmp_path / "report.json", blocker / "junit.xml"
    with pytest.raises(FairvecError, match="--junit"):
        write_all_or_none([(first, "{}\n", "--json"), (second, "<x/>\n", "--junit")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder"]


def test_sigterm_during_a_run_leaves_both_reports_or_neither(tmp_path: Path) -> None:
    """End to end: a run stopped at any moment leaves no temporary file, and never a JSON
    report without its JUnit twin."""
    import subprocess
    import time

    from support import FAIRVEC

    for delay in (0.3, 0.6, 0.9, 1.2):
        folder = tmp_path / f"after-{delay}"
        folder.mkdir()
        command = [FAIRVEC, "run", *PYTHON, "--algorithm", "battle.*", "--tier", "none",
                   "--json", str(folder / "r.json"), "--junit", str(folder / "r.xml")]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=HANG)
        names = sorted(p.name for p in folder.iterdir())
        assert names in ([], ["r.json", "r.xml"]), (delay, names)
        if names:
            check_reports(folder / "r.json", folder / "r.xml")


# -- 2. strict JSON -------------------------------------------------------------------------


def _info() -> RunInfo:
    suite = SuiteSource("0.0.0", "sha256:" + "0" * 64, 1, "folder", "/nowhere")
    claims = {"pinned": {}, "pinned_by": {}, "outputs": {}, "fresh": None}
    coverage = Coverage(suite, {}, ["battle.move"], {}, [], claims)
    return RunInfo("0.0.0", "sha256:" + "0" * 64, "a", "1", ["a"], "2026-01-01T00:00:00+00:00",
                   float("inf"), 0, coverage, "localhost", [], None)  # fmt: skip


def test_a_json_report_is_strict_json_whatever_it_holds() -> None:
    vector = {"id": "battle.move/x", "variant": None, "input": {}, "expected": {"a": 1}}
    result = Result(vector, "battle.move", "fail", "wrong", got={"a": float("nan")})
    text = render_json(_info(), [result])

    def refuse(constant: str) -> None:
        raise AssertionError(f"bare {constant} in the report")

    report = json.loads(text, parse_constant=refuse)
    assert report["duration_seconds"] == "inf (not a JSON number)"


# -- 3 and 5. known-failures files ----------------------------------------------------------


def _results(count: int) -> list[Result]:
    return [
        Result({"id": f"casino.mines/case-{n}"}, "casino.mines", "fail") for n in range(count)
    ]


def test_a_known_failures_file_with_a_bom_and_crlf_lines_matches(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_bytes(b"\xef\xbb\xbfcasino.mines/case-1  # Notepad\r\ncasino.mines/case-2\r\n")
    results = _results(3)
    apply_known_failures(results, read_known_failures(listed))
    assert [result.known_failure for result in results] == [False, True, True]


@pytest.mark.parametrize("breaker", ["\f", "\v", "\x1c", "\x85", "\u2028", "\u2029"])
def test_a_known_failures_line_is_the_editors_line(tmp_path: Path, breaker: str) -> None:
    """Only \\n, \\r\\n and \\r end a line: a form feed or U+2028 inside one is refused on
    the line an editor shows (splitlines() broke the line there, and named the next)."""
    listed = tmp_path / "known.txt"
    listed.write_text(f"casino.mines/case-1  # first\r\ncase-2{breaker}case-3\n", "utf-8")
    with pytest.raises(FairvecError, match=r"known\.txt:2: 'case-2.+case-3' is more than one id"):
        read_known_failures(listed)


def test_a_bom_through_the_command_line(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_bytes(b"\xef\xbb\xbf" + FIRE.encode() + b"  # listed\r\n")
    json_path = tmp_path / "report.json"
    done = fairvec("run", *THREE, *PYTHON, "--known-failures", listed, "--json", json_path)
    assert done.status == 1, done.stderr  # fire passes, so its listing is an unexpected pass
    report = done.report(json_path)
    [fire] = [r for r in report["results"] if r["id"] == FIRE]
    assert fire["unexpected_pass"] is True


def test_an_invisible_character_in_an_entry_is_refused(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text("casino.mines/case-1\n\u200bcasino.mines/case-2\n", encoding="utf-8")
    with pytest.raises(FairvecError, match=r"known.txt:2: .*invisible or control"):
        read_known_failures(listed)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse"])
def test_a_known_failures_file_that_is_no_file_is_refused(tmp_path: Path, kind: str) -> None:
    listed = tmp_path / "known.txt"
    make_special(listed, kind, size=20 * 1024 * 1024)  # sparse: one 20 MB line
    done = fairvec("run", *THREE, *PYTHON, "--known-failures", listed, timeout=HANG)
    _one_line_error(done, f"--known-failures {listed}")


def test_the_first_entry_in_file_order_lists_a_vector(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text(
        "casino.mines/case-1?  # glob of ten\ncasino.*  # all\ncasino.mines/case-1  # id\n"
        "*-2  # leading\n",
        encoding="utf-8",
    )
    results = _results(20)
    apply_known_failures(results, read_known_failures(listed))
    reasons = [result.known.reason if result.known else None for result in results]
    assert reasons[1] == "all" and reasons[2] == "all" and reasons[12] == "glob of ten"


@pytest.mark.heavy  # 200,000 globs over 20,000 results
def test_200000_globs_match_without_multiplying_by_the_suite(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    lines = [f"casino.mines/case-{n}?*  # r" for n in range(200_000)]
    listed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = _results(20_000)
    apply_known_failures(results, read_known_failures(listed))
    # case-1x.. matches case-1?* (line 2); case-0 .. case-9 have no second character
    assert sum(result.known_failure for result in results) == 20_000 - 10
    assert results[10].known is not None and results[10].known.line == 2


def test_too_many_leading_wildcards_are_refused(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text("".join(f"*x{n}\n" for n in range(MAX_LEADING_WILDCARDS + 1)))
    with pytest.raises(FairvecError, match="begin with a wildcard"):
        read_known_failures(listed)


# -- 3. a hello naming 100,000 algorithms ---------------------------------------------------


def _many_names_adapter(tmp_path: Path, count: int) -> Path:
    adapter = tmp_path / "adapter.py"
    adapter.write_text(
        "import json, sys\n"
        f"names = {{f'made.up{{n}}': [] for n in range({count - 1})}}\n"
        "names['battle.move'] = []\n"
        "print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'many', 'version': '1', "
        "'algorithms': names}), flush=True)\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'id': json.loads(line)['id'], 'unsupported': True}), flush=True)\n"
    )
    return adapter


def test_a_hello_naming_100000_algorithms_is_refused_at_once(tmp_path: Path) -> None:
    adapter = _many_names_adapter(tmp_path, 100_000)
    done = fairvec("run", "--algorithm", "battle.move", "--tier", "none",
                   "--", sys.executable, adapter, timeout=HANG)  # fmt: skip
    _one_line_error(done, "bad hello line", "100,000 named")


def test_unknown_names_in_a_hello_are_warned_of_ten_at_a_time(tmp_path: Path) -> None:
    adapter = _many_names_adapter(tmp_path, 1000)
    json_path = tmp_path / "report.json"
    done = fairvec("run", "--algorithm", "battle.move", "--tier", "none", "--json", json_path,
                   "--", sys.executable, adapter, timeout=HANG)  # fmt: skip
    assert done.status == 2, done.stderr  # every vector answered unsupported: none was run
    warnings = done.report(json_path)["warnings"]
    assert "the hello names 989 more algorithms the suite does not have" in warnings
    assert sum(w.startswith("the hello names 'made.up") for w in warnings) == 10


# -- 4. extras checked before any work ------------------------------------------------------


@pytest.fixture
def hidden(tmp_path: Path) -> Iterator[Any]:
    """Run fairvec with some modules made unimportable, as if their extra were missing."""
    import subprocess

    from support import FAIRVEC

    def run(modules: list[str], *arguments: str | Path) -> subprocess.CompletedProcess[str]:
        for module in modules:
            package = tmp_path / "hidden" / module
            package.mkdir(parents=True, exist_ok=True)
            (package / "__init__.py").write_text(f"raise ImportError('{module} is hidden')\n")
        environment = {**os.environ, "PYTHONPATH": str(tmp_path / "hidden")}
        return subprocess.run([FAIRVEC, *map(str, arguments)], capture_output=True, text=True,
                              env=environment, timeout=HANG, cwd=tmp_path)  # fmt: skip

    yield run


def test_generate_without_numpy_is_refused_before_any_work(hidden: Any, tmp_path: Path) -> None:
    from support import REPO

    done = hidden(["numpy"], "generate", "--check", "--root", REPO)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "pip install 'fairvec[analysis]'" in done.stderr
    assert done.stdout == ""  # nothing generated first
    other = hidden(["numpy"], "generate", "--check", "--root", REPO, "--algorithm", "nardy.cuts")
    assert other.returncode == 0, other.stderr  # what needs no NumPy still works


def test_analyze_plot_without_matplotlib_is_refused_first(hidden: Any, tmp_path: Path) -> None:
    done = hidden(["matplotlib"], "analyze", "casino.dice", "--plot", tmp_path / "p.png")
    assert done.returncode == 2 and "'fairvec[analysis]'" in done.stderr, done.stderr
    assert done.stdout == ""  # the distribution was not computed and printed first


@pytest.mark.parametrize(
    "arguments", [["analyze", "verdicts", "--check"], ["analyze", "videopoker", "--pay-table",
                                                        "jacks-or-better"]]
)  # fmt: skip
def test_analyze_without_numpy_names_the_extra(hidden: Any, arguments: list[str]) -> None:
    done = hidden(["numpy"], *arguments)
    assert done.returncode == 2 and "'fairvec[analysis]'" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("installed_from", "advice"),
    [
        (None, "pip install '.[release]' at its root"),
        (("/src/fairvec", True), "pip install -e '/src/fairvec[release]' (the clone"),
        (("/src/fairvec", False), "pip install '/src/fairvec[release]' (the clone"),
    ],
)
def test_a_missing_extra_names_the_clone_form_too(
    monkeypatch: pytest.MonkeyPatch, installed_from: tuple[str, bool] | None, advice: str
) -> None:
    """In a clone, the package index's form alone (`pip install 'fairvec[release]'`) is the
    wrong advice: it fetches another fairvec or none (issue 36)."""
    monkeypatch.setattr(extras, "importable", lambda module: False)
    monkeypatch.setattr(extras, "installed_from_folder", lambda: installed_from)
    with pytest.raises(FairvecError) as refused:
        extras.require("release", "cryptography", "signing")
    message = str(refused.value)
    assert advice in message and "pip install 'fairvec[release]'" in message
    assert "\n" not in message


def test_fuzz_without_numpy_leaves_out_or_refuses(hidden: Any) -> None:
    named = hidden(["numpy"], "fuzz", "--algorithm", "videopoker.analysis", "--count", "1",
                   "--bundled", "python")  # fmt: skip
    assert named.returncode == 2 and "'fairvec[analysis]'" in named.stderr, named.stderr
    assert "fairvec fuzz (videopoker.analysis)" in named.stderr


def test_the_algorithms_needing_an_extra_are_listed(hidden: Any, tmp_path: Path) -> None:
    """Every algorithm's reference run with every extra's module hidden (NumPy, py_ecc):
    the ones that fail to import are exactly those extras.py lists, so the up-front check
    cannot miss one."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import json\n"
        "from fairvec.reference._algorithm import compute\n"
        "from fairvec.vectorfiles import default_vectors_root\n"
        "needing = []\n"
        "for path in sorted(default_vectors_root().glob('*/*.json')):\n"
        "    data = json.loads(path.read_text())\n"
        "    vector = next(v for v in data['vectors'] if 'expected' in v)\n"
        "    try:\n"
        "        compute(data['algorithm'], vector['input'], vector['variant'])\n"
        "    except ImportError:\n"
        "        needing.append(data['algorithm'])\n"
        "    except Exception:\n"
        "        pass\n"
        "print(json.dumps(needing))\n"
    )
    import subprocess

    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "hidden")}
    for module in sorted({module for _, module in ALGORITHMS_NEEDING.values()}):
        (tmp_path / "hidden" / module).mkdir(parents=True)
        (tmp_path / "hidden" / module / "__init__.py").write_text("raise ImportError('hidden')\n")
    done = subprocess.run([sys.executable, "-P", str(script)], capture_output=True, text=True,
                          env=environment, timeout=HANG, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sorted(ALGORITHMS_NEEDING)


# -- the bounded reader itself --------------------------------------------------------------


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_read_regular_refuses_what_is_not_a_bounded_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "file"
    make_special(path, kind)
    with pytest.raises(FairvecError, match=f"^{path}: a vector file "):
        read_regular(path, "a vector file", 1024 * 1024)


# -- paths the system refuses, and numbers out of range -------------------------------------

LONG = "a" * 300  # past NAME_MAX (255): the system refuses the name itself


@pytest.mark.parametrize(
    "arguments",
    [["--json", LONG], ["--junit", LONG + ".xml"], ["--vectors", LONG], ["--known-failures", LONG],
     ["--json", "loop"], ["--json", "r.json", "--junit", "loop"]],
    ids=["json-long", "junit-long", "vectors-long", "known-long", "json-loop", "junit-loop"],
)  # fmt: skip
def test_a_path_the_system_refuses_is_one_line(tmp_path: Path, arguments: list[str]) -> None:
    (tmp_path / "loop").symlink_to("loop")
    placed = [str(tmp_path / word) if word in ("loop", LONG, LONG + ".xml") else word
              for word in arguments]  # fmt: skip
    done = fairvec("run", *THREE, *PYTHON, *placed)
    assert done.status == 2, done.stderr
    assert "internal error" not in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(
    "arguments",
    [["run", *THREE, *PYTHON, "--max-details", "-1"],
     ["fuzz", "--count", "99999999999999999999999", "--algorithm", "battle.move", *PYTHON]],
    ids=["max-details", "fuzz-count"],
)  # fmt: skip
def test_numbers_out_of_range_are_refused(arguments: list[str]) -> None:
    done = fairvec(*arguments, timeout=HANG)
    assert done.status == 2, done.stderr
    assert "must be 0 or more" in done.stderr or "at most 10,000,000" in done.stderr


# -- closed standard streams ----------------------------------------------------------------


def _closing(*descriptors: int) -> Any:
    """A preexec that closes ``descriptors`` in the child, as ``>&-`` or ``2>&-`` does."""

    def close() -> None:
        for descriptor in descriptors:
            os.close(descriptor)

    return close


def test_a_closed_stdout_is_refused_in_one_line_as_a_full_disk_is() -> None:
    done = fairvec("run", *THREE, *PYTHON, preexec=_closing(1))
    _one_line_error(done, "standard output is closed", "/dev/null")


def test_a_closed_stderr_or_stdin_leaves_the_run_and_its_status_alone() -> None:
    """A passing run exited 1, its last flush failing on the closed stream; and with
    ``--json -`` the error went to stdout in the report's place."""
    for closed in (0, 2):
        done = fairvec("run", *THREE, *PYTHON, "--json", "-", preexec=_closing(closed))
        assert done.status == 0, (closed, done.stdout)
        report = json.loads(done.stdout)
        assert report["summary"]["pass"] == 3 and report["success"] is True
    failing = fairvec("run", *THREE, "--", sys.executable, "-c", "import sys; print(1/0)")
    closed_stderr = fairvec(
        "run", *THREE, "--", sys.executable, "-c", "import sys; print(1/0)", preexec=_closing(2)
    )
    assert (failing.status, closed_stderr.status) == (2, 2)
    assert closed_stderr.stderr == ""


# -- an output that is also an input ---------------------------------------------------------


def test_a_report_over_the_known_failures_list_is_refused_before_the_run(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text(f"{FIRE}\n", encoding="utf-8")
    linked = tmp_path / "link.json"
    linked.symlink_to(listed)
    for option, path in (("--json", listed), ("--junit", listed), ("--json", linked)):
        done = fairvec("run", *THREE, *PYTHON, "--known-failures", listed, option, path)
        _one_line_error(done, f"{option} {path}: is also --known-failures {listed}")
        assert "passed" not in done.stdout
    assert listed.read_text(encoding="utf-8") == f"{FIRE}\n"


def test_an_html_page_over_a_report_it_reads_is_refused(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    assert fairvec("run", *THREE, *PYTHON, "--json", report).status == 0
    before = report.read_bytes()
    done = fairvec("report", "--html", report, report)
    _one_line_error(done, f"--html {report}: is also the report {report}")
    assert report.read_bytes() == before
