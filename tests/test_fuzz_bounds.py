"""``fairvec fuzz`` stays inside its bounds (issue 18, item 4): every drawn and every
case-derived input keeps to spec/fuzz.yaml's cost bounds, ``--seconds`` bounds the whole
run with the work in flight, and a slow input is never a port's mismatch.

No assertion here is on wall-clock time: the subprocess timeouts are hang guards, generous
enough for a loaded machine, that the old behaviour overran by minutes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from support import HANG, HUNG, REPO, fairvec

from fairvec.fuzz.plan import AlgorithmPlan
from fairvec.fuzz.space import load_space
from fairvec.specs import load_spec

SPEC_ROOT = REPO / "spec"
CHAIN_CHECK = "bustabit.chain_check"
SCHEMA_MAXIMUM = 10_000_000  # spec/bustabit/chain_check.yaml, max_steps

# An adapter for bustabit.previous_hash that answers as the reference does, except that it
# never answers the inputs its first argument names ("all", or an index): a port that hangs.
SLOW_PORT = """
import json, re, sys, time
from fairvec.adapters.python.__main__ import respond
from fairvec.reference import registry

which = sys.argv[1]
algorithm = "bustabit.previous_hash"
hello = {"type": "hello", "protocol": 1, "name": "slow-port", "version": "0",
         "algorithms": {algorithm: list(registry()[algorithm].variants)}}
print(json.dumps(hello), flush=True)
for line in sys.stdin.buffer:
    request = json.loads(line)
    if which == "all" or re.search(f"/fuzz-{which}(@|$)", request["id"]):
        time.sleep(3600)
    print(json.dumps(respond(line)), flush=True)
"""


def slow_port(tmp_path: Path, which: str) -> list[str]:
    script = tmp_path / "slow_port.py"
    script.write_text(SLOW_PORT, encoding="utf-8")
    return ["--", sys.executable, str(script), which]


def chain_check_plan() -> AlgorithmPlan:
    spec = load_spec(SPEC_ROOT / "bustabit" / "chain_check.yaml", SPEC_ROOT)
    return AlgorithmPlan(spec, load_space().for_algorithm(CHAIN_CHECK), spec.variants)


def tally(stdout: str, algorithm: str) -> dict[str, int]:
    """One row of the summary table, by its header."""
    header = next(line for line in stdout.splitlines() if line.startswith("algorithm "))
    row = next(line for line in stdout.splitlines() if line.startswith(algorithm + " "))
    return dict(zip(header.split()[1:], map(int, row.split()[1:]), strict=True))


# ----- the input space -----


def test_every_valid_max_steps_keeps_to_the_cost_bound_cases_included() -> None:
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    bound = space["algorithms"][CHAIN_CHECK]["bounds"]["max_steps"]["maximum"]
    plan = chain_check_plan()  # once: loading the spec and space costs more than 400 draws
    drawn = [plan.draw("7", index) for index in range(400)]
    valid = [
        d.input["max_steps"]
        for d in drawn
        if type(d.input.get("max_steps")) is int and 0 <= d.input["max_steps"] <= SCHEMA_MAXIMUM
    ]
    assert valid and max(valid) <= bound
    clamped = [d for d in drawn if any("max_steps: clamped" in how for how in d.how)]
    assert clamped, "the real chain walks (max_steps 10^7) are in the corpus, clamped"
    assert all(any(how.startswith("case ") for how in d.how) for d in clamped)
    # values the schema rejects are still drawn: the reference rejects them before any work
    assert any(
        type(d.input.get("max_steps")) is int and d.input["max_steps"] > SCHEMA_MAXIMUM
        for d in drawn
    )


def test_a_bound_on_a_field_the_spec_lacks_is_named(tmp_path: Path) -> None:
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    space["algorithms"][CHAIN_CHECK]["bounds"] = {"max_step": {"maximum": 10}}
    bad = tmp_path / "fuzz.yaml"
    bad.write_text(yaml.safe_dump(space), encoding="utf-8")
    done = fairvec("fuzz", "--space", bad, "--algorithm", CHAIN_CHECK, "--bundled", "python")
    assert done.status == 2, done.stdout + done.stderr
    assert f"algorithms/{CHAIN_CHECK}/bounds/max_step: {CHAIN_CHECK} has no input field" in (
        done.stderr
    )


def test_a_bound_is_checked_against_the_schema(tmp_path: Path) -> None:
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    space["algorithms"][CHAIN_CHECK]["bounds"] = {"max_steps": {"maximum": "many"}}
    bad = tmp_path / "fuzz.yaml"
    bad.write_text(yaml.safe_dump(space), encoding="utf-8")
    done = fairvec("fuzz", "--space", bad, "--bundled", "python")
    assert done.status == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"algorithms/{CHAIN_CHECK}/bounds/max_steps/maximum" in done.stderr


# ----- the command -----


def test_chain_check_judges_every_input_without_walking_a_real_chain() -> None:
    # seed 7 draws real chain walks (max_steps 10^7) among its first 60 inputs:
    # before the bound they took minutes, and the adapter's --timeout made mismatches of them
    done = fairvec(
        "fuzz",
        "--algorithm",
        CHAIN_CHECK,
        "--count",
        "60",
        "--seed",
        "7",
        "--bundled",
        "python",
        timeout=HANG,
    )
    assert done.status == 0, done.stdout[-2000:] + done.stderr
    assert tally(done.stdout, CHAIN_CHECK)["tried"] == 60


def test_seconds_bounds_the_work_in_flight_too(tmp_path: Path) -> None:
    # an adapter that never answers, with a --timeout far beyond --seconds: the run ends
    # at --seconds, every input "not judged: out of time", none a mismatch
    done = fairvec(
        "fuzz",
        "--seconds",
        "3",
        "--timeout",
        "600",
        "--count",
        "20",
        "--seed",
        "5",
        *slow_port(tmp_path, "all"),
        timeout=HANG,
    )
    assert done.status == 2, done.stdout[-2000:] + done.stderr  # nothing judged: no pass
    assert "no input was judged" in done.stderr
    assert "(stopped by --seconds); 0 mismatch(es); 20 not judged" in done.stdout
    assert re.search(r"^not judged: out of time \(--seconds\): 20 input\(s\): ", done.stdout, re.M)
    counts = tally(done.stdout, "bustabit.previous_hash")
    assert counts["tried"] == 0 and counts["unjudged"] == 20 and counts["mismatches"] == 0


def test_a_slow_input_is_not_a_mismatch(tmp_path: Path) -> None:
    done = fairvec(
        "fuzz",
        *HUNG,
        "--count",
        "6",
        "--seed",
        "5",
        *slow_port(tmp_path, "2"),
        timeout=HANG,
    )
    assert done.status == 0, done.stdout[-2000:] + done.stderr
    assert "; 0 mismatch(es); 1 not judged" in done.stdout
    assert "not judged: slow (no answer within --timeout" in done.stdout
    assert re.search(r"^  bustabit\.previous_hash/fuzz-2\S* \{", done.stdout, re.M)
    counts = tally(done.stdout, "bustabit.previous_hash")
    assert counts == {
        "tried": 5,
        "invalid": counts["invalid"],
        "skipped": 0,
        "unjudged": 1,
        "mismatches": 0,
    }
