"""The pytest plugin (fairvec/pytest_plugin.py), exercised in example projects by pytester.

The example ports never import the reference: the correct one answers from the committed
vector files' expected values, the broken one does the same and then spoils some answers
by a rule the test applies to the same files to know which vectors must fail.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from fairvec.vectorfiles import default_vectors_root, vectors_digest

pytest_plugins = ["pytester"]

VECTORS = default_vectors_root()
# Plugins each example run can do without: hypothesis's alone takes over a second a session.
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark")

# A port that knows every answer: it looks the input up in the vector files it is given.
ORACLE = """
import json
from pathlib import Path

ANSWERS = {}
for path in sorted(Path({root!r}).glob("battle/*.json")):
    data = json.loads(path.read_text(encoding="utf-8"))
    for vector in data["vectors"]:
        key = (data["algorithm"], json.dumps(vector["input"], sort_keys=True), vector["variant"])
        ANSWERS[key] = vector["expected"]


class PortError(Exception):
    def __init__(self, code):
        super().__init__("rejected by the example port")
        self.code = code


def answer(algorithm, input, variant):
    expected = ANSWERS.get((algorithm, json.dumps(input, sort_keys=True), variant))
    if expected is None:  # an accumulated vector's case: drawn, not in the files
        raise NotImplementedError("not in the vector files")
    if "error" in expected:
        raise PortError(expected["error"])
    return dict(expected["output"])
"""

CORRECT = (
    ORACLE
    + """

def fairvec_port(algorithm, input, variant):
    return answer(algorithm, input, variant)


def test_the_ports_own_test():
    assert answer is not None
"""
)

MOVES = ["fire", "grass", "water"]


def spoiled(output: dict[str, Any]) -> bool:
    """The broken port's rule: a battle.move answer whose ticket is a multiple of 7 gets
    the next move instead."""
    return "ticket" in output and output["ticket"] % 7 == 0


BROKEN = (
    ORACLE
    + f"""
MOVES = {MOVES!r}


def fairvec_port(algorithm, input, variant):
    output = answer(algorithm, input, variant)
    if output["ticket"] % 7 == 0:
        output["move"] = MOVES[(MOVES.index(output["move"]) + 1) % 3]
    return output
"""
)

# Records, at the end of the run, which of fairvec's modules the run imported.
RECORD_IMPORTS = """
import sys
from pathlib import Path


def pytest_sessionfinish(session):
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("fairvec", "jsonschema"))
    Path(__file__).with_name("imported.json").write_text(__import__("json").dumps(loaded))
"""


def vectors_of(
    pattern: str, keep: Callable[[dict[str, Any]], bool] = lambda _vector: True
) -> list[dict[str, Any]]:
    """The committed vectors of the algorithms matching ``pattern`` (family/name glob)."""
    return [
        vector
        for path in sorted(VECTORS.glob(pattern))
        for vector in json.loads(path.read_text(encoding="utf-8"))["vectors"]
        if keep(vector)
    ]


def accumulated_of(pattern: str) -> list[dict[str, Any]]:
    """The default tier's accumulated vectors of the algorithms matching ``pattern``, as
    fairvec run shows (and digests) them."""
    from fairvec.runner.accumulated_run import Accumulated

    shown = []
    for path in sorted(VECTORS.glob(pattern)):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data.get("accumulated", []):
            if entry["tier"] == "default":
                shown.append(dict(Accumulated(entry, data["algorithm"]).vector))
    return shown


def ran(result: pytest.RunResult, outcome: str) -> list[str]:
    """Vector ids reported with ``outcome`` by a -v run (test ids: module::fairvec_port::id)."""
    found = re.compile(rf"^test_port\.py::fairvec_port::(\S+) {outcome}\b")
    return [match[1] for line in result.outlines if (match := found.match(line))]


def collected(result: pytest.RunResult) -> list[str]:
    prefix = "test_port.py::fairvec_port::"
    return [line[len(prefix) :] for line in result.outlines if line.startswith(prefix)]


def port_project(pytester: pytest.Pytester, source: str) -> None:
    pytester.makepyfile(test_port=source.replace("{root!r}", repr(str(VECTORS))))


# -- the whole battle family ---------------------------------------------------------------


def test_the_battle_family_runs_one_test_per_vector_named_by_its_id(
    pytester: pytest.Pytester,
) -> None:
    battle = [vector["id"] for vector in vectors_of("battle/*.json")]
    assert len(battle) > 700 and len(set(battle)) == len(battle)
    port_project(pytester, CORRECT)
    pytester.makeconftest(RECORD_IMPORTS)
    # a fresh interpreter, so what it imports is what the plugin and the port imported
    result = pytester.runpytest_subprocess("-v", *QUIET, "--fairvec-algorithm", "battle.*")
    # the accumulated vectors run too, after the fixed ones, as in fairvec run (this port
    # knows only the files' inputs: it answers unsupported to their drawn cases)
    streams = accumulated_of("battle/*.json")
    assert streams
    result.assert_outcomes(passed=len(battle) + 1, skipped=len(streams))  # + the module's test
    assert ran(result, "PASSED") == battle  # ids are the vector ids, in the files' order
    assert ran(result, "SKIPPED") == [vector["id"] for vector in streams]
    imported = json.loads((pytester.path / "imported.json").read_text())
    assert "fairvec.runner.compare" in imported  # judged by the runner's rules
    assert not [name for name in imported if name.startswith("fairvec.reference")]
    # the digest fairvec run prints: of the fixed vectors, then the accumulated ones
    digest = vectors_digest([*vectors_of("battle/*.json"), *streams])
    total = len(battle) + len(streams)
    summary = f"{total} vectors ({len(streams)} accumulated) from {VECTORS}, vectors {digest}"
    assert next(line for line in result.outlines if line.startswith("fairvec ")).endswith(summary)


def test_the_documented_example_runs_as_documented(pytester: pytest.Pytester) -> None:
    text = (REPO / "docs" / "pytest-plugin.md").read_text(encoding="utf-8")
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) <= 12  # ten lines of code, and a comment
    pytester.makepyfile(test_fairvec=example)
    # mygame: the port the example imports, answering from the vector files
    pytester.makepyfile(
        mygame=ORACLE.replace("{root!r}", repr(str(VECTORS)))
        + "\nBadInput = PortError\n\n"
        + "def random_move(**input):\n    return answer('battle.move', input, None)\n"
    )
    result = pytester.runpytest(*QUIET, "--fairvec-algorithm", "battle.*")
    moves = vectors_of("battle/move.json")
    others = len(vectors_of("battle/*.json")) - len(moves) + len(accumulated_of("battle/*.json"))
    result.assert_outcomes(passed=len(moves), skipped=others)


def test_a_wrong_answer_fails_with_the_first_difference_and_a_diff(
    pytester: pytest.Pytester,
) -> None:
    moves = vectors_of("battle/move.json")
    wrong = [v for v in moves if "output" in v["expected"] and spoiled(v["expected"]["output"])]
    assert wrong and len(wrong) < len(moves)
    port_project(pytester, BROKEN)
    result = pytester.runpytest(*QUIET, "-v", "--fairvec-algorithm", "battle.move")
    result.assert_outcomes(passed=len(moves) - len(wrong), failed=len(wrong))
    assert ran(result, "FAILED") == [vector["id"] for vector in wrong]
    first = wrong[0]
    expected_move = first["expected"]["output"]["move"]
    got_move = MOVES[(MOVES.index(expected_move) + 1) % 3]
    text = result.stdout.str()
    block = text[text.index(f"{first['id']}  [") :]
    block = block[: block.index("\n_") if "\n_" in block else len(block)]
    assert "output differs at .move" in block
    assert f'"move": "{expected_move}"' in block.split("\ngot:")[0]
    assert f'-  "move": "{expected_move}",' in block
    assert f'+  "move": "{got_move}",' in block
    assert f'"round_num": {first["input"]["round_num"]}' in block  # the input is shown
    assert "pytest_plugin.py" not in block  # no traceback through the plugin


def test_errors_unsupported_and_non_json_answers_are_judged_as_the_runner_judges(
    pytester: pytest.Pytester,
) -> None:
    invalid = vectors_of("battle/move.json", lambda v: "error" in v["expected"])
    assert invalid
    pytester.makepyfile(
        test_port="""
        from fairvec.pytest_plugin import Rejected

        def fairvec_port(algorithm, input, variant):
            if algorithm == "battle.commitment":
                raise NotImplementedError("no hash yet")
            if algorithm == "battle.ticket":
                return {"ticket": {1, 2}}  # a set: JSON cannot carry it
            raise Rejected("not-the-right-code", "nope")
        """
    )
    result = pytester.runpytest(
        *QUIET,
        "-v",
        "-rs",
        "--fairvec-algorithm",
        "battle.commitment",
        "--fairvec-algorithm",
        "battle.ticket",
        "--fairvec-algorithm",
        "battle.move",
        "--fairvec-tag",
        "invalid",
    )
    hashes = vectors_of("battle/commitment.json", lambda v: "invalid" in v["tags"])
    tickets = vectors_of("battle/ticket.json", lambda v: "invalid" in v["tags"])
    result.assert_outcomes(skipped=len(hashes), failed=len(tickets) + len(invalid))
    text = result.stdout.str()
    assert "the adapter answered unsupported: no hash yet" in text
    assert "the port's output is not JSON" in text
    wanted = invalid[0]["expected"]["error"]
    assert f"expected error {wanted!r}, got error 'not-the-right-code' (nope)" in text


# -- accumulated vectors ---------------------------------------------------------------------

# This port alone computes with the reference: an accumulated vector's inputs are drawn
# (10,000 of them), not in the files. SPOIL_FIRST: its first answer is wrong.
REFERENCE_PORT = """
from fairvec.reference import InvalidInput, compute
from fairvec.pytest_plugin import Rejected

SPOIL_FIRST = {spoil}
asked = 0


def fairvec_port(algorithm, input, variant):
    global asked
    asked += 1
    try:
        output = compute(algorithm, input, variant)
    except InvalidInput as error:
        raise Rejected(error.code) from error
    if SPOIL_FIRST and asked == 1:
        output = dict(output, spoiled=True)
    return output
"""


def test_accumulated_vectors_run_and_are_digested_as_fairvec_run_does(
    pytester: pytest.Pytester,
) -> None:
    """Issue 36: the plugin left them out without saying so (341 against fairvec run's
    342, and another digest). A right port passes the stream; one wrong answer fails it,
    naming the block."""
    streams = accumulated_of("stake/crash.json")  # the cheapest stream for the reference
    assert len(streams) == 1
    selection = ("--fairvec-algorithm", "stake.crash", "--fairvec-tag", "accumulated")
    pytester.makepyfile(test_port=REFERENCE_PORT.format(spoil=False))
    result = pytester.runpytest(*QUIET, "-v", *selection)
    result.assert_outcomes(passed=1)
    assert ran(result, "PASSED") == [streams[0]["id"]]
    summary = f"1 vectors (1 accumulated) from {VECTORS}, vectors {vectors_digest(streams)}"
    assert any(line.endswith(summary) for line in result.outlines)

    pytester.makepyfile(test_port=REFERENCE_PORT.format(spoil=True))
    result = pytester.runpytest(*QUIET, *selection)
    result.assert_outcomes(failed=1)
    assert "the digest differs from block 1 of 10 on (cases 0 to 999)" in result.stdout.str()


def test_the_tier_option_chooses_the_accumulated_vectors(pytester: pytest.Pytester) -> None:
    port_project(pytester, CORRECT)
    result = pytester.runpytest(*QUIET, "--collect-only", "-q", "--fairvec-algorithm", "battle.a*")
    streams = [vector["id"] for vector in accumulated_of("battle/a*.json")]
    assert streams and collected(result)[-len(streams) :] == streams
    result = pytester.runpytest(
        *QUIET, "--collect-only", "-q", "--fairvec-algorithm", "battle.a*", "--fairvec-tier", "none"
    )
    assert not set(streams) & set(collected(result))


# -- selection -----------------------------------------------------------------------------


def test_selection_by_algorithm_glob_and_by_tag(pytester: pytest.Pytester) -> None:
    port_project(pytester, CORRECT)
    result = pytester.runpytest(
        *QUIET,
        "--collect-only",
        "-q",
        "--fairvec-algorithm",
        "battle.m*",
        "--fairvec-algorithm",
        "battle.ticket",
        "--fairvec-tag",
        "edge",
        "--fairvec-tag",
        "invalid",
    )
    wanted = [
        v["id"]
        for name in ("move", "ticket")
        for v in vectors_of(
            f"battle/{name}.json", lambda v: bool({"edge", "invalid"} & set(v["tags"]))
        )
    ]
    assert wanted and collected(result) == wanted


def test_selection_from_the_ini_file_and_by_tag_with_k(pytester: pytest.Pytester) -> None:
    port_project(pytester, CORRECT)
    pytester.makeini("[pytest]\nfairvec_algorithm =\n    battle.attack\n")
    result = pytester.runpytest(*QUIET, "--collect-only", "-q", "-k", "edge")
    wanted = [v["id"] for v in vectors_of("battle/attack.json", lambda v: "edge" in v["tags"])]
    assert wanted and collected(result) == wanted


# -- refusals, each one line ----------------------------------------------------------------


def test_asking_for_vectors_without_a_port_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest(*QUIET, "--fairvec-algorithm", "battle.*")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert errors == [
        "ERROR: fairvec: --fairvec-algorithm given, but no collected test module defines "
        "fairvec_port(algorithm, input, variant); define one (see docs/pytest-plugin.md) or "
        "drop --fairvec-algorithm"
    ]


@pytest.mark.parametrize(
    ("source", "options", "message"),
    [
        ("fairvec_port = 3", [], "fairvec_port is a int; make it a function"),
        (
            "def fairvec_port(algorithm, input):\n    pass",
            [],
            "fairvec_port must take three arguments (algorithm, input, variant)",
        ),
        (
            "def fairvec_port(a, i, v):\n    pass",
            ["--fairvec-vectors", "nowhere"],
            "nowhere: no vectors folder here",
        ),
        (
            "def fairvec_port(a, i, v):\n    pass",
            ["--fairvec-algorithm", "no.such"],
            "no vector matches the selection (check --fairvec-algorithm no.such",
        ),
        (
            "def fairvec_port(a, i, v):\n    pass",
            ["--fairvec-suite", "release.tar.gz"],
            "needs --fairvec-trusted-key KEY",
        ),
    ],
)
def test_a_bad_port_or_option_is_one_line(
    pytester: pytest.Pytester, source: str, options: list[str], message: str
) -> None:
    pytester.makepyfile(test_port=source)
    result = pytester.runpytest(*QUIET, *options)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error
    shown = [line for line in result.outlines if line.startswith("fairvec: ")]
    assert len(shown) == 1 and message in shown[0], result.stdout.str()
    assert "Traceback" not in result.stdout.str()


# -- inert where nobody asks ----------------------------------------------------------------


def test_a_suite_without_a_port_is_untouched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.makeconftest(RECORD_IMPORTS)
    result = pytester.runpytest_subprocess(*QUIET)
    result.assert_outcomes(passed=1)
    assert re.search(r"^plugins: .*\bfairvec-", result.stdout.str(), re.M)  # loaded, yet:
    assert not [line for line in result.outlines if line.startswith("fairvec ")]
    imported = json.loads((pytester.path / "imported.json").read_text())
    assert imported == ["fairvec", "fairvec.pytest_plugin"]  # no vectors read, no jsonschema


def test_fairvecs_own_run_collected_no_port(request: pytest.FixtureRequest) -> None:
    from fairvec.pytest_plugin import _PORTS, _SELECTION

    assert request.config.pluginmanager.has_plugin("fairvec")
    assert request.config.stash.get(_PORTS, 0) == 0
    assert request.config.stash.get(_SELECTION, None) is None


# -- a verified release ---------------------------------------------------------------------


def test_vectors_from_a_verified_release(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytest.importorskip("cryptography", reason="signed releases need the release extra")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        PublicFormat,
    )

    from fairvec.cli import main

    tree = tmp_path / "tree"
    for name in (
        "vectors/vectors.schema.json",
        "vectors/battle/ticket.json",
        "spec/spec.schema.json",
        "spec/battle/ticket.yaml",
        "runner/schemas/protocol.schema.json",
        "runner/schemas/report.schema.json",
        "docs/adapter-protocol.md",
    ):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).resolve().parent.parent / name, tree / name)
    keys = {}
    for who in ("maintainer", "intruder"):
        key = Ed25519PrivateKey.generate()
        private = tmp_path / who
        private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
        private.chmod(0o600)
        public = key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode()
        (tmp_path / f"{who}.pub").write_text(f"{public} {who}@test\n", encoding="utf-8")
        keys[who] = private
    out = tmp_path / "dist"
    status = main(
        [
            "release",
            "build",
            "--version",
            "1.0.0",
            "--out",
            str(out),
            "--source",
            str(tree),
            "--ssh-key",
            str(keys["maintainer"]),
        ]
    )
    assert status == 0
    archive = out / "fairvec-vectors-1.0.0.tar.gz"
    port_project(pytester, CORRECT)
    tickets = [v["id"] for v in vectors_of("battle/ticket.json")]

    result = pytester.runpytest(
        *QUIET,
        "-v",
        "--fairvec-suite",
        str(archive),
        "--fairvec-trusted-key",
        str(tmp_path / "maintainer.pub"),
    )
    result.assert_outcomes(passed=len(tickets) + 1)
    assert ran(result, "PASSED") == tickets
    assert any(line.startswith("fairvec ") and "release 1.0.0" in line for line in result.outlines)

    refused = pytester.runpytest(
        *QUIET,
        "--fairvec-suite",
        str(archive),
        "--fairvec-trusted-key",
        str(tmp_path / "intruder.pub"),
    )
    assert refused.ret == pytest.ExitCode.INTERRUPTED
    shown = [line for line in refused.outlines if line.startswith("fairvec: ")]
    assert len(shown) == 1 and "release refused" in shown[0], refused.stdout.str()
    refused.assert_outcomes(errors=1)  # the collection error: no vector ran
