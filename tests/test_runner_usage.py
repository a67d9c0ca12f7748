"""fairvec run's own input, checked before the run: option values, report paths, vector
and spec files. Each mistake is one line on stderr and exit 2, never a traceback; and a
run that checks nothing does not pass silently."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import FAIRVEC_COMMAND, FIRE, HANG, REPO, THREE, fairvec, misbehaving

from fairvec import cli
from fairvec.errors import FairvecError
from fairvec.specs import load_spec
from fairvec.vectorfiles import SCHEMA_NAME


def one_line_exit_2(done: Any, message: str) -> None:
    assert done.status == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e300", "soon"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_refused(value: str) -> None:
    done = fairvec("run", *THREE, "--timeout", value, *misbehaving())
    assert done.status == 2 and "Traceback" not in done.stderr
    # argparse's usual form: the usage, then the one line that names the option and the fix
    assert done.stderr.strip().splitlines()[-1].endswith(
        f"argument --timeout: {value!r}: give a number of seconds more than 0 and at most 86400"
    ) or "is not a number of seconds" in done.stderr


def test_a_report_path_that_is_a_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    # the adapter does not exist: the report path is checked first, so that is not reached
    done = fairvec("run", *THREE, "--json", tmp_path, "--", str(tmp_path / "no-adapter"))
    one_line_exit_2(done, f"--json {tmp_path}: is a folder")


def test_a_report_path_under_a_file_is_refused_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    target = blocker / "junit.xml"
    done = fairvec("run", *THREE, "--junit", target, "--", str(tmp_path / "no-adapter"))
    one_line_exit_2(done, f"--junit {target}: {blocker} is not a folder")


def test_a_report_place_where_no_file_can_be_made_is_refused_before_the_run(
    tmp_path: Path,
) -> None:
    """/proc says writable to root by its permission bits, yet no file can be made there:
    the check makes one (and removes it) instead of trusting the bits."""
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc on this system")
    done = fairvec("run", *THREE, "--junit", "/proc/x.xml", "--", str(tmp_path / "no-adapter"))
    one_line_exit_2(done, "--junit /proc/x.xml: cannot write in /proc")


def test_a_misspelt_algorithm_is_answered_with_the_closest_id() -> None:
    done = fairvec("run", "--algorithm", "battle.mvoe", "--bundled", "python")
    one_line_exit_2(done, "--algorithm 'battle.mvoe' matches nothing: did you mean 'battle.move'?")


def vector_folder(tmp_path: Path, text: bytes) -> Path:
    """A vectors folder (the schema beside the families) whose battle/move.json is ``text``."""
    family = tmp_path / "vectors" / "battle"
    family.mkdir(parents=True)
    shutil.copy(REPO / "vectors" / SCHEMA_NAME, tmp_path / "vectors")
    (family / "move.json").write_bytes(text)
    return tmp_path / "vectors"


def test_a_vector_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    root = vector_folder(tmp_path, b'{"format": "fairvec-vectors/1",\n "title": "caf\xe9"}')
    done = fairvec("run", "--vectors", root, *misbehaving())
    one_line_exit_2(done, "move.json:2: a vector file is not UTF-8 text (byte 0xe9")


# own_process: how deep a file's nesting the readers reach depends on the stack under them,
# the command's own (in a pytest worker, 100,000 levels overflowed the C stack: a crash)
@pytest.mark.own_process
@pytest.mark.parametrize("depth", [100, 100_000])
def test_a_deeply_nested_vector_file_is_named(tmp_path: Path, depth: int) -> None:
    root = vector_folder(tmp_path, b"[" * depth + b"]" * depth)
    done = fairvec("run", "--vectors", root, *misbehaving())
    one_line_exit_2(done, "move.json: a vector file ")
    assert "nest" in done.stderr


def spec_folder(tmp_path: Path, text: bytes) -> Path:
    family = tmp_path / "spec" / "battle"
    family.mkdir(parents=True)
    (family / "move.yaml").write_bytes(text)
    return family / "move.yaml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"id: battle.move\ntitle: caf\xe9\n", "spec/battle/move.yaml:2: a spec file is not UTF-8"),
        (b"id: " + b"[" * 100_000, "spec/battle/move.yaml: a spec file is nested too deeply"),
        (b"id: " + b"[" * 100 + b"]" * 100, "nests arrays or objects more than 64 levels"),
    ],
)
def test_a_bad_spec_file_is_one_line(tmp_path: Path, text: bytes, message: str) -> None:
    path = spec_folder(tmp_path, text)
    with pytest.raises(FairvecError) as raised:
        load_spec(path, tmp_path / "spec")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_an_internal_error_has_its_own_status_and_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(_arguments: Any) -> int:
        raise RuntimeError("something\nimpossible")

    monkeypatch.setattr(cli, "_run_generate", broken)
    assert cli.main(["generate"]) == cli.EXIT_INTERNAL == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error: RuntimeError: something impossible" in err


def test_a_reader_that_leaves_is_not_an_internal_error() -> None:
    """`fairvec ... | head`: the pipe closes under a long output; that is SIGPIPE's status,
    with nothing on stderr, not a bug report."""
    code = (
        "import sys\n"
        "from fairvec import cli\n"
        "def chatty(_arguments):\n"
        "    while True:\n"
        "        print('x' * 1000)\n"
        "cli._run_generate = chatty\n"
        "sys.exit(cli.main(['generate']))\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.read(10)
    child.stdout.close()
    assert child.wait(timeout=HANG) == 128 + signal.SIGPIPE
    assert child.stderr.read() == b""


ENTRY = (
    "import atexit, sys\n"
    "from fairvec import cli\n"
    "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
    "def last_words(_arguments):\n"
    "    sys.stdout.write('y' * 100_000 + 'end')  # buffered: only a flush writes it\n"
    "    return int(sys.argv[1])\n"
    "cli._run_generate = last_words\n"
    "sys.argv[1:] = ['generate']\n"
    "cli.entry()\n"
)


@pytest.mark.parametrize("status", [0, 1, 2])
def test_the_command_flushes_everything_and_runs_the_exit_handlers(status: int) -> None:
    """cli.entry (the console script and python -m fairvec): main's status, every byte
    written, and the atexit handlers run once (matplotlib removes a temporary folder in
    one), though the rest of the interpreter's teardown is skipped."""
    done = subprocess.run(
        [sys.executable, "-c", ENTRY.replace("sys.argv[1]", str(status))],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == status
    assert done.stdout == "y" * 100_000 + "end"
    assert done.stderr.count("teardown ran") == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "command",
    [
        ["run", *THREE, "--tier", "none", "--bundled", "python"],
        ["stream", "casino.bytes", "--count", "100000"],
    ],
    ids=["run", "stream"],
)
def test_output_to_a_full_disk_is_one_line(command: list[str], buffered: bool) -> None:
    """stdout on a full disk (/dev/full): the write fails inside the command (unbuffered)
    or at the last flush (buffered); either way one line and exit 2, not a traceback."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        environment["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*FAIRVEC_COMMAND, *command],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
            timeout=HANG,
        )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "cannot write the output: No space left" in lines[0], lines


def test_the_console_script_is_the_entry() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'fairvec = "fairvec.cli:entry"' in text
    assert "entry()" in (REPO / "fairvec" / "__main__.py").read_text(encoding="utf-8")


def report_of(tmp_path: Path, *arguments: str) -> tuple[Any, dict[str, Any]]:
    """fairvec run with a JSON report; ``arguments`` end with the adapter (-- ...)."""
    path = tmp_path / "report.json"
    done = fairvec("run", "--json", path, *arguments)
    return done, json.loads(path.read_text(encoding="utf-8"))


def test_a_hello_naming_no_algorithm_of_the_suite_warns_and_exits_2(tmp_path: Path) -> None:
    adapter = misbehaving("--algorithms", json.dumps({"battle.mvoe": []}))
    done, report = report_of(tmp_path, *THREE, *adapter)
    assert done.status == 2
    assert "the hello names no algorithm the suite has" in done.stdout
    assert "'battle.mvoe', which the suite does not have (did you mean 'battle.move'?)" in (
        done.stdout
    )
    assert "no vector was run" in done.stderr and len(done.stderr.splitlines()) == 1
    assert report["warnings"] and report["success"] is False


def test_an_adapter_answering_everything_unsupported_does_not_pass(tmp_path: Path) -> None:
    done, report = report_of(tmp_path, *THREE, *misbehaving("all-unsupported"))
    assert done.status == 2
    assert "answered unsupported to all 3 vectors it was sent" in done.stdout
    assert report["summary"]["skip"] == 3


def test_unknown_variants_and_empty_variant_lists_are_warned_about(tmp_path: Path) -> None:
    hello = {"battle.move": ["fast"], "casino.hmac_key": []}
    selection = ["--algorithm", "battle.move", "--algorithm", "casino.hmac_key"]
    selection += ["-k", "/fire", "-k", "casino.hmac_key/"]
    adapter = misbehaving("--algorithms", json.dumps(hello))
    done, report = report_of(tmp_path, *selection, *adapter)
    assert done.status == 0, done.stdout + done.stderr
    warnings = " | ".join(report["warnings"])
    assert "variant 'fast' of battle.move, which has no variants" in warnings
    assert "no variant of casino.hmac_key ([])" in warnings
    strict, _report = report_of(tmp_path, *selection, "--fail-on-skip", *adapter)
    assert strict.status == 1
    assert "skipped, and --fail-on-skip is set" in strict.stdout
    assert {r["id"]: r["status"] for r in report["results"]}[FIRE] == "pass"
