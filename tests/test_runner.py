"""The runner against adapters that misbehave in every way the protocol allows."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support import FIRE, GRASS, HANG, HUNG, REPO, ROOMY, THREE, WATER, fairvec, misbehaving


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {result["id"]: result["status"] for result in report["results"]}


def result_of(report: dict[str, Any], vector_id: str) -> dict[str, Any]:
    return next(result for result in report["results"] if result["id"] == vector_id)


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_well_behaved_adapter_passes_and_exits_0(report_path: Path) -> None:
    done = fairvec("run", *THREE, "--json", report_path, *misbehaving())
    assert done.status == 0, done.stdout + done.stderr
    assert statuses(done.report(report_path)) == {FIRE: "pass", GRASS: "pass", WATER: "pass"}
    assert "3 passed, 0 failed, 0 errors, 0 skipped" in done.stdout


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", "exited (status 3) while handling this vector"),
        ("garbage", "bad line on stdout"),
        ("wrong-id", "answered id 'no-such-vector', which was not asked"),
        ("stderr", "wrote its response on stderr"),
    ],
)
def test_misbehaviour_is_pinned_on_its_vector_and_the_run_goes_on(
    report_path: Path, mode: str, message: str
) -> None:
    done = fairvec("run", *THREE, "--json", report_path, *misbehaving(f"{mode}:{GRASS}"))
    report = done.report(report_path)
    assert done.status == 1
    assert statuses(report) == {FIRE: "pass", GRASS: "error", WATER: "pass"}
    assert message in result_of(report, GRASS)["message"]


def test_a_hung_adapter_is_killed_after_the_timeout_and_restarted(report_path: Path) -> None:
    done = fairvec("run", *THREE, *HUNG, "--json", report_path, *misbehaving(f"hang:{GRASS}"))
    report = done.report(report_path)
    assert statuses(report) == {FIRE: "pass", GRASS: "error", WATER: "pass"}
    assert f"no response within {HUNG[1]}s" in result_of(report, GRASS)["message"]
    assert report["restarts"] == 1


def test_a_crash_is_restarted_and_its_stderr_reported(report_path: Path) -> None:
    done = fairvec(
        "run", *THREE, "--window", "3", "--json", report_path, *misbehaving(f"crash:{FIRE}")
    )
    report = done.report(report_path)
    # the crash costs only the vector being handled; the two sent behind it are sent again
    assert statuses(report) == {FIRE: "error", GRASS: "pass", WATER: "pass"}
    assert [result["id"] for result in report["results"]] == [FIRE, GRASS, WATER]
    assert report["restarts"] == 1


def test_a_missing_response_is_charged_to_the_skipped_vector(report_path: Path) -> None:
    done = fairvec(
        "run", *THREE, "--window", "3", "--json", report_path, *misbehaving(f"skip:{FIRE}")
    )
    report = done.report(report_path)
    assert statuses(report) == {FIRE: "error", GRASS: "pass", WATER: "pass"}
    assert "answered 'battle.move/grass' before this one" in result_of(report, FIRE)["message"]


def test_a_missing_last_response_times_out(report_path: Path) -> None:
    done = fairvec("run", *THREE, *HUNG, "--json", report_path, *misbehaving(f"skip:{WATER}"))
    assert statuses(done.report(report_path)) == {FIRE: "pass", GRASS: "pass", WATER: "error"}


def test_wrong_output_fails_with_a_readable_diff(report_path: Path) -> None:
    done = fairvec("run", *THREE, "--json", report_path, *misbehaving(f"wrong-output:{WATER}"))
    assert done.status == 1
    assert f"FAIL {WATER}" in done.stdout
    assert "output differs at .ticket" in done.stdout
    assert '"move": "stone"' in done.stdout  # got
    assert '"move": "water"' in done.stdout  # expected
    assert "breaks the output schema" in done.stdout
    assert statuses(done.report(report_path))[WATER] == "fail"


def test_wrong_error_code_fails() -> None:
    done = fairvec(
        "run",
        "--algorithm",
        "battle.move",
        "-k",
        "round-zero",
        *misbehaving("wrong-error:battle.move/round-zero"),
    )
    assert done.status == 1
    assert "expected error 'round-out-of-range', got error 'something-else' (nope)" in done.stdout


def test_unsupported_algorithms_are_skipped_not_failed(report_path: Path) -> None:
    only_move = json.dumps({"battle.move": []})  # the hello names battle.move alone
    done = fairvec(
        "run", "--algorithm", "battle.*", "-k", "random-1", "--json", report_path,
        *misbehaving("--algorithms", only_move),
    )  # fmt: skip
    report = done.report(report_path)
    assert done.status == 0, done.stdout
    assert report["summary"]["skip"] > 0
    assert {r["status"] for r in report["results"] if r["algorithm"] == "battle.move"} == {"pass"}
    assert {r["status"] for r in report["results"] if r["algorithm"] != "battle.move"} == {"skip"}


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("exit-before-hello", "exited (status 4) before its hello line; stderr: cannot start"),
        ("bad-hello", "bad hello line"),
    ],
)
def test_an_adapter_that_cannot_start_is_an_infrastructure_error(mode: str, message: str) -> None:
    done = fairvec("run", *THREE, *misbehaving(mode))
    assert done.status == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_adapter_that_cannot_be_restarted_ends_every_vector(
    tmp_path: Path, report_path: Path
) -> None:
    marker = tmp_path / "started"
    done = fairvec(
        "run",
        *THREE,
        "--window",
        "1",
        "--json",
        report_path,
        *misbehaving("crash-after-restart", str(marker), f"crash:{FIRE}"),
    )
    report = done.report(report_path)
    assert done.status == 2
    assert statuses(report) == {FIRE: "error", GRASS: "not-run", WATER: "not-run"}
    assert "could not be restarted" in result_of(report, WATER)["message"]
    assert "exited (status 5) before its hello line" in result_of(report, WATER)["message"]


def test_known_failures_are_tolerated_and_a_fixed_one_is_reported(tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text(f"# the port gets water wrong\n{WATER}\n", encoding="utf-8")
    broken = fairvec(
        "run", *THREE, "--known-failures", known, *misbehaving(f"wrong-output:{WATER}")
    )
    assert broken.status == 0, broken.stdout
    assert "1 known failure(s) still fail" in broken.stdout
    fixed = fairvec("run", *THREE, "--known-failures", known, *misbehaving())
    assert fixed.status == 1
    assert f"UNEXPECTED PASS {WATER}" in fixed.stdout


def test_json_report_matches_its_schema_and_junit_parses(tmp_path: Path, report_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    done = fairvec(
        "run",
        *THREE,
        "--json",
        report_path,
        "--junit",
        junit,
        *misbehaving(f"wrong-output:{WATER}", f"crash:{FIRE}"),
    )
    report = done.report(report_path)
    schema_text = (
        resources.files("fairvec.runner").joinpath("schemas", "report.schema.json").read_text()
    )
    jsonschema.validate(report, json.loads(schema_text))
    assert report["vectors_digest"].startswith("sha256:")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")


def test_the_digest_names_the_vectors_run() -> None:
    first = fairvec("run", *THREE, *misbehaving()).stdout
    again = fairvec("run", *THREE, *misbehaving()).stdout
    fewer = fairvec("run", "--algorithm", "battle.move", "-k", "/fire", *misbehaving()).stdout
    digest = [line for line in first.splitlines() if "vectors sha256:" in line]
    assert digest and digest == [line for line in again.splitlines() if "vectors sha256:" in line]
    assert digest[0] not in fewer


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run"], "no adapter: give --bundled python|node or -- COMMAND"),
        (
            ["run", "--algorithm", "nothing.*", "--bundled", "python"],
            "no vector matches the selection",
        ),
        (["run", "--vectors", "/nonexistent", "--bundled", "python"], "no vectors folder here"),
        (
            ["run", "--bundled", "python", "--known-failures", "/nonexistent"],
            "cannot read a known-failures list",
        ),
        (["run", *THREE, "--", "/nonexistent/adapter"], "cannot start '/nonexistent/adapter'"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    done = fairvec(*arguments)
    assert done.status == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_corrupt_vector_file_is_named(tmp_path: Path) -> None:
    shutil.copy(REPO / "vectors" / "vectors.schema.json", tmp_path)
    family = tmp_path / "battle"
    family.mkdir()
    (family / "move.json").write_text(
        '{"format": "fairvec-vectors/1", "vectors": [}', encoding="utf-8"
    )
    done = fairvec("run", "--vectors", tmp_path, "--bundled", "python")
    assert done.status == 2
    assert done.stderr.startswith(f"fairvec: error: {family / 'move.json'}:1:")
    assert "not valid JSON" in done.stderr and "not a fairvec vectors folder" not in done.stderr


def test_a_folder_that_is_not_a_vectors_folder_is_called_so(tmp_path: Path) -> None:
    """--vectors at some other folder (/tmp, say): its first stray JSON file is not blamed
    for a missing "algorithm" with "regenerate" as the fix: the folder is named instead."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.json").write_text('{"items": []}', encoding="utf-8")
    done = fairvec("run", "--vectors", tmp_path, "--bundled", "python")
    assert done.status == 2 and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"fairvec: error: {tmp_path}: not a fairvec vectors folder")
    assert "notes/todo.json is not a vector file" in done.stderr
    assert "regenerate" not in done.stderr and "--suite ARCHIVE" in done.stderr


@pytest.mark.heavy
@pytest.mark.parametrize("bundled", ["python", "node"])
def test_bundled_adapters_pass_every_vector(bundled: str, report_path: Path) -> None:
    if bundled == "node" and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    # The accumulated streams are the one part left out: tests/test_accumulated.py runs them
    # through both adapters, and here they would double the suite's time.
    done = fairvec(
        "run", "--bundled", bundled, "--tier", "none", *ROOMY, "--json", report_path, timeout=HANG
    )
    report = done.report(report_path)
    failing = [r["id"] for r in report["results"] if r["status"] in ("fail", "error")]
    assert failing == []
    assert done.status == 0
    # both bundled adapters implement every algorithm of every family: nothing skipped
    assert report["summary"]["skip"] == 0
    assert {r["algorithm"].split(".")[0] for r in report["results"]} == {
        path.name for path in (REPO / "vectors").iterdir() if path.is_dir()
    }


def test_the_runner_never_imports_the_reference() -> None:
    # The arrows go one way: the runner reads vectors and talks to adapters only.
    code = (
        "import sys, fairvec.cli, fairvec.runner.cli, fairvec.runner.session\n"
        "fairvec.cli._parser()\n"
        "loaded = [m for m in sys.modules if m.startswith('fairvec.reference')]\n"
        "sys.exit(f'runner imported {loaded}' if loaded else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_skipped_result_is_short_and_a_failed_one_carries_its_expectation(
    report_path: Path,
) -> None:
    """A one-algorithm adapter run over more: the skipped vectors' entries leave out the
    expectation (it is in the vectors; with it such reports were 20 MB), failures keep it."""
    declared = json.dumps({"battle.move": []})
    done = fairvec(
        "run", "--algorithm", "battle.*", "--tier", "none", "--json", report_path,
        *misbehaving("--algorithms", declared, f"wrong-output:{FIRE}"),
    )  # fmt: skip
    results = done.report(report_path)["results"]
    skipped = [r for r in results if r["status"] == "skip"]
    (failed,) = [r for r in results if r["status"] == "fail"]
    assert skipped and all("expected" not in r and r["message"] for r in skipped)
    assert failed["id"] == FIRE and failed["expected"]["output"]["move"] == "fire"
