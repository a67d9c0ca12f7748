"""The compiled benchmark adapter (benchmarks/c_adapter, issue 20 section 3) passes every
fixed vector of its algorithms and their default-tier accumulated vectors (computed by the
adapter: its hello says "accumulate": true) through ``fairvec run``, so that
benchmarks/compiled_targets.py times a correct port. Skipped, saying why, where gcc, OpenSSL's
headers (libssl-dev) or cJSON (libcjson-dev) are missing."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import HANG, REPO, ROOMY, fairvec

# whole streams through real ports: the inner loop (-m 'not heavy') leaves them to the test command
pytestmark = pytest.mark.heavy

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compiled_targets.py"


def targets() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compiled_targets", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass in it looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def adapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    module = targets()
    missing = module.missing_for_build()
    if missing:
        pytest.skip("cannot build the C adapter, missing: " + ", ".join(missing))
    output = tmp_path_factory.mktemp("c_adapter") / "adapter"
    problem = module.build(output)
    assert problem is None, problem
    return output


def test_every_vector_of_its_algorithms_passes(adapter: Path, tmp_path: Path) -> None:
    module = targets()
    folder = module.vector_folder()
    expected: dict[str, str] = {}  # vector id -> algorithm
    accumulated = set()
    algorithms = module.implemented(adapter)
    for algorithm, file in algorithms.items():
        data = json.loads((folder / file).read_text(encoding="utf-8"))
        expected.update((vector["id"], algorithm) for vector in data["vectors"])
        for vector in data.get("accumulated", []):
            if vector["tier"] == "default":
                expected[vector["id"]] = algorithm
                accumulated.add(vector["id"])
    assert accumulated, "the adapter's algorithms have accumulated vectors"
    report_path = tmp_path / "report.json"
    selection = [part for name in algorithms for part in ("--algorithm", name)]
    # what cJSON cannot see (integers written 10.0 or 1e308), listed with the reason: the list
    # is strict, so the run fails if one of them passes or another vector fails
    known = REPO / "benchmarks" / "c_adapter" / "known-failures.txt"
    done = fairvec(
        "run", "--no-progress", *selection, *ROOMY, "--json", report_path,
        "--known-failures", known, "--", adapter, timeout=HANG,
    )  # fmt: skip
    report = json.loads(report_path.read_text(encoding="utf-8"))
    statuses = {result["id"]: result["status"] for result in report["results"]}
    # beside each accumulated vector, a fresh stream drawn at run time (issue 34), computed
    # by the adapter too: judged with the rest below
    fresh = {result["id"] for result in report["results"] if result.get("fresh")}
    assert len(fresh) == len(accumulated), fresh
    assert set(statuses) - fresh == set(expected)
    listed = {result["id"] for result in report["results"] if result.get("known_failure")}
    failing = {v: s for v, s in statuses.items() if s != "pass" and v not in listed}
    assert not failing, (list(failing.items())[:10], done.stdout[-2000:])
    assert done.status == 0, done.stdout + done.stderr


def test_the_ready_check_of_the_protocol_document(adapter: Path) -> None:
    """docs/adapter-protocol.md, 3a: the first 25 cases of stake.dice's stream, blocks of 10."""
    stream = {
        "seed": "stake.dice/accumulated/v1",
        "input": {
            "server_seed": {"hex": 64},
            "client_seed": {"text": {"min": 0, "max": 32, "alphabet": "unicode"}},
            "nonce": {"int": [0, 1000000]},
        },
    }
    request = {
        "id": "ready",
        "algorithm": "stake.dice",
        "variant": "truncate",
        "accumulate": {
            "stream": stream,
            "encoding": "fairvec-accumulated/1",
            "count": 25,
            "block": 10,
        },
    }
    done = subprocess.run(
        [str(adapter)],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "hello" and lines[0]["accumulate"] is True
    assert [line["checkpoint"]["block"] for line in lines[1:-1]] == [1, 2]
    assert lines[-1]["accumulated"] == {
        "count": 25,
        "digest": "a97592584fd860dd4a29bbe935690e4afeaa319dbf2cd681adc2efacc5420158",
        "checkpoints": [
            "9a0e560c8e218e0a1808334405c78db21b61a97937523736d53052a9dca42665",
            "10b933d3f9a4e49ab1a4111d5f607df4f93dbd6e64c5892caabf809e58e364cf",
            "a97592584fd860dd4a29bbe935690e4afeaa319dbf2cd681adc2efacc5420158",
        ],
    }


def test_it_computes_each_default_tier_digest_itself(adapter: Path) -> None:
    """The accumulate requests the benchmark pipes in are answered with the vectors' digests
    (not ``unsupported``, which would make ``fairvec run`` fall back to case by case)."""
    module = targets()
    pairs = module.accumulate_requests(
        module.vector_folder(), "default", module.implemented(adapter)
    )
    done = subprocess.run(
        [str(adapter)],
        input=b"".join(line for _, line in pairs),
        capture_output=True,
        timeout=HANG,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()[1:]]
    finals = {a["id"]: a["accumulated"] for a in answers if "checkpoint" not in a}
    assert {vector["id"] for vector, _ in pairs} == set(finals)
    for vector, _ in pairs:
        assert finals[vector["id"]]["digest"] == vector["expected"]["digest"], vector["id"]
        assert finals[vector["id"]]["checkpoints"] == vector["expected"]["checkpoints"]


def test_one_wrong_case_in_a_million_is_named_with_its_input(
    adapter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20: a port that computes a full tier's million cases itself, one of them wrong
    (FAIRVEC_C_ADAPTER_WRONG_CASE: an error in place of case 4,321's output, in the stream
    and when asked alone), fails that vector, and the report names the case and its input."""
    vector_id = "stake.dice/accumulated-full@truncate"
    data = json.loads((targets().vector_folder() / "stake" / "dice.json").read_text())
    full = next(vector for vector in data["accumulated"] if vector["id"] == vector_id)
    assert full["count"] == 1_000_000
    monkeypatch.setenv("FAIRVEC_C_ADAPTER_WRONG_CASE", "4321")
    report_path = tmp_path / "report.json"
    done = fairvec(
        "run", "--no-progress", "--algorithm", "stake.dice", "--tier", "full",
        "--tag", "accumulated-full", *ROOMY, "--json", report_path, "--", adapter, timeout=HANG,
    )  # fmt: skip
    assert done.status == 1, done.stdout + done.stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    [result] = [result for result in report["results"] if result["id"] == vector_id]
    assert result["status"] == "fail" and result["got"]["computed_by"] == "adapter"
    assert "the first differing case is 4321: input {" in result["message"]
    assert "wrong-on-purpose" in result["message"] + json.dumps(result["got"])
