"""``fairvec generate``: determinism, staleness, and one-line errors for broken specs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support import FAIRVEC_COMMAND, HANG, PATIENCE, REPO, fairvec


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the repository's specs and vectors to break at will."""
    shutil.copytree(REPO / "spec", tmp_path / "spec")
    shutil.copytree(REPO / "vectors", tmp_path / "vectors")
    shutil.copytree(REPO / "upstream", tmp_path / "upstream")
    return tmp_path


# The battle algorithms without accumulated vectors: battle.attack's and battle.damage's
# 10,000-case streams are 85% of generating the family, and a test of how generate meets
# a broken move.yaml or hash.yaml needs none of it.
MOVE_AND_HASH = ("battle.move", "battle.hash")
UNACCUMULATED = (*MOVE_AND_HASH, "battle.ticket", "battle.input_string", "battle.commitment")


def generate(root: Path, *extra: str, only: tuple[str, ...] = ("battle.*",)) -> tuple[int, str]:
    """Generate the battle family only (or the algorithms ``only`` names): the generator's
    behaviour, not every family's."""
    chosen = [word for algorithm in only for word in ("--algorithm", algorithm)]
    done = fairvec("generate", "--root", root, *chosen, *extra)
    return done.status, done.stdout + done.stderr


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_generation_is_byte_identical_when_run_twice(root: Path) -> None:
    shutil.rmtree(root / "vectors" / "battle")
    assert generate(root)[0] == 0
    first = {p.name: p.read_bytes() for p in (root / "vectors" / "battle").iterdir()}
    shutil.rmtree(root / "vectors" / "battle")
    assert generate(root)[0] == 0
    second = {p.name: p.read_bytes() for p in (root / "vectors" / "battle").iterdir()}
    assert first == second
    assert first == {p.name: p.read_bytes() for p in (REPO / "vectors" / "battle").iterdir()}


def test_parallel_generation_writes_what_one_process_writes(root: Path) -> None:
    battle = root / "vectors" / "battle"
    shutil.rmtree(battle)
    assert generate(root, "--jobs", "1", only=UNACCUMULATED)[0] == 0
    serial = {p.name: p.read_bytes() for p in battle.iterdir()}
    assert len(serial) == len(UNACCUMULATED)
    shutil.rmtree(battle)
    assert generate(root, "--jobs", "3", only=UNACCUMULATED)[0] == 0
    assert {p.name: p.read_bytes() for p in battle.iterdir()} == serial


def test_an_error_in_a_worker_is_the_one_line_one_process_gives(root: Path) -> None:
    """The error raised while computing (in a worker process with --jobs) reaches the
    command line as the same one line, and the other algorithms' files are not written."""
    # the fire case's find gives up: an error met only when computing, in the worker
    edit(
        root / "spec" / "battle" / "move.yaml",
        "      until: {move: fire}",
        "      until: {move: fire}\n      limit: 1",
    )
    edit(root / "spec" / "battle" / "move.yaml", "round_num: 1,", "round_num: 2,")
    edit(
        root / "spec" / "battle" / "hash.yaml",
        "  - name: empty\n",
        "  - name: empty\n    comment: changed\n",
    )
    hash_before = (root / "vectors" / "battle" / "hash.json").read_bytes()
    outputs = {jobs: generate(root, "--jobs", jobs, only=UNACCUMULATED) for jobs in ("1", "4")}
    assert outputs["1"] == outputs["4"]
    status, output = outputs["4"]
    assert status == 2 and len(output.strip().splitlines()) == 1, output
    assert "Traceback" not in output
    assert (root / "vectors" / "battle" / "hash.json").read_bytes() == hash_before


def _children(pid: int) -> list[int]:
    listed = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in listed.read_text().split()] if listed.exists() else []


@pytest.mark.parametrize("forked", [1, 2])
def test_sigterm_ends_the_workers_and_writes_nothing(root: Path, forked: int) -> None:
    """Stopped while its pool starts (one worker forked, the next not yet: a stop there
    once left a worker running) or while its workers compute, generate ends them (no
    orphan keeps a CPU busy for a minute, or the pipes of whoever started it open) and
    writes no file."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("this system does not list a process's children in /proc")
    shutil.rmtree(root / "vectors" / "tenhou")
    command = [*FAIRVEC_COMMAND, "generate", "--root", str(root), "--jobs", "2",
               "--algorithm", "tenhou.*"]  # fmt: skip
    # a session of its own: whatever is left of it can be found, and killed
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + PATIENCE
        while len(workers := _children(process.pid)) < forked and time.monotonic() < deadline:
            time.sleep(0.001)
        assert len(workers) >= forked, "the pool never started"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=HANG)
        left = _in_group(process.pid)
    finally:  # (nothing is left when all went well)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        if process.returncode is None:
            process.communicate()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stderr.strip() == "fairvec: stopped by SIGTERM"
    assert not left, "a worker outlived generate"
    assert not (root / "vectors" / "tenhou").exists()


def _in_group(group: int) -> bool:
    """Whether any process is left in process group ``group``."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(
    ("jobs", "message"), [("0", "'0': must be 1 or more"), ("two", "'two' is not a whole number")]
)
def test_a_bad_jobs_count_is_a_usage_error(root: Path, jobs: str, message: str) -> None:
    status, output = generate(root, "--jobs", jobs)
    assert status == 2 and message in output


def test_check_fails_on_a_stale_file_and_writes_nothing(root: Path) -> None:
    target = root / "vectors" / "battle" / "move.json"
    target.write_text(
        target.read_text(encoding="utf-8").replace('"fire"', '"FIRE"'), encoding="utf-8"
    )
    stale = target.read_bytes()
    status, output = generate(root, "--check", only=MOVE_AND_HASH)
    assert status == 1
    assert "stale: vectors/battle/move.json" in output
    assert target.read_bytes() == stale


def test_adding_a_case_moves_no_other_vector(root: Path) -> None:
    before = set(
        (root / "vectors" / "battle" / "move.json").read_text(encoding="utf-8").splitlines()
    )
    edit(
        root / "spec" / "battle" / "move.yaml",
        "cases:\n",
        "cases:\n  - name: added\n"
        '    input: {server_seed: "x", battle_id: "y", player_address: "z",'
        " round_num: 5, player_number: 2}\n",
    )
    assert generate(root, only=MOVE_AND_HASH)[0] == 0
    after = (root / "vectors" / "battle" / "move.json").read_text(encoding="utf-8").splitlines()
    added = [line for line in after if line not in before]
    assert len(added) == 1 and '"battle.move/added"' in added[0]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("title: A random move", "title: [unclosed", "spec/battle/move.yaml:3:7: not valid YAML"),
        (
            # YAML reads a flow mapping's unquoted comma as the end of the description
            'description: "the 32-bit ticket before % 3"}',
            "description: the 32-bit ticket, before % 3}",
            "spec/battle/move.yaml: outputs/properties/ticket: 'before % 3' is no JSON Schema "
            "keyword",
        ),
        ("steps:\n", "stepz:\n", "spec/battle/move.yaml: (top level): 'steps' is a required"),
        (
            "  - name: move_from_ticket",
            "  - name: move_from_tiket",
            "steps/1/name: fairvec.reference.battle has no function 'move_from_tiket'",
        ),
        (
            "    exercised_by: [random]",
            "    exercised_by: [randomly]",
            "quirks/0/exercised_by: no case, generated, upstream or accumulated set is named "
            "'randomly'",
        ),
        (
            "    error: round-out-of-range",
            "    error: round-too-small",
            "the spec expects error 'round-too-small', the reference raised round-out-of-range",
        ),
        ("id: battle.move", "id: battle.moves", "id: is 'battle.moves' but the file's place says"),
        ("title: A random move", "title: A random move\ntitle: again", "key 'title' appears twice"),
        (
            "      until: {move: fire}",
            "      until: {move: fire}\n      limit: 1\n      vary: battle_id",
            "key 'vary' appears twice",
        ),
        (
            "move: {enum: [fire, grass, water]}",
            "move: {enum: [fire, grass]}",
            "spec/battle/move.yaml: water: output: move: 'water' is not one of",
        ),
        (  # the reference checks inputs against the spec being generated, not a copy
            "round_num: {type: integer, minimum: 1,",
            "round_num: {type: integer, minimum: 2,",
            "spec/battle/move.yaml: cases/fire/find: round-out-of-range: battle.move round_num:"
            " must be at least 2, got 1",
        ),
        (
            "round_num: {type: integer, minimum: 1, maximum: 9007199254740991,",
            "round_num: {type: integer, minimum: 1,",
            "spec/battle/move.yaml: inputs/properties/round_num: bound the integer within",
        ),
        (
            "error: round-out-of-range}",
            "}",
            "inputs/properties/round_num: minimum has no error code: add error: CODE",
        ),
        (
            "title: A random move",
            "title: A random move\n{{placeholder}}: 1",
            "a key must be plain text, not dict",
        ),
        (
            "shapes_from: fire ",
            "shapes_from: flame ",
            "spec/battle/move.yaml: shapes_from: no case 'flame' for the default variant",
        ),
        (
            "shapes_from: fire ",
            "shapes_from: round-zero ",
            "shapes_from: case 'round-zero' expects an error: name a case with an output",
        ),
        (
            "shapes_from: fire ",
            "shapes_from: random ",  # a generated set, not a case
            "spec/battle/move.yaml: shapes_from: no case 'random' for the default variant",
        ),
        (
            "shapes_from: fire ",
            "shape_from: fire ",
            "spec/battle/move.yaml: (top level): 'shapes_from' is a required property",
        ),
    ],
)
def test_a_broken_spec_is_one_line_naming_file_and_field(
    root: Path, old: str, new: str, message: str
) -> None:
    vectors_before = {p: p.read_bytes() for p in (root / "vectors").rglob("*.json")}
    edit(root / "spec" / "battle" / "move.yaml", old, new)
    edit(
        root / "spec" / "battle" / "hash.yaml",
        "  - name: empty\n",
        "  - name: empty\n    comment: changed\n",
    )
    status, output = generate(root, only=MOVE_AND_HASH)
    assert status == 2
    assert message in output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1
    # nothing half-written: hash.json would change, but no file was touched
    assert {p: p.read_bytes() for p in (root / "vectors").rglob("*.json")} == vectors_before


def test_find_that_finds_nothing_names_the_case(root: Path) -> None:
    edit(
        root / "spec" / "battle" / "move.yaml",
        "      until: {move: fire}",
        "      until: {move: fire}\n      limit: 1",
    )
    edit(root / "spec" / "battle" / "move.yaml", "round_num: 1,", "round_num: 2,")
    status, output = generate(root, only=MOVE_AND_HASH)
    assert status == 2
    assert "cases/fire/find: no input within 1 tries" in output


DOCUMENT_CASE = """  - name: stated
    tags: [document-example]
    document: {section: "Context", states: {hash: "%s"}}
    input: {input: "abc"}
"""
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
WRONG = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae"
QUIRK = """  - id: misprint
    document_says: a digest ending in ae
    reference_does: computes the digest ending in ad
    why: the document has a typo
    exercised_by: [stated]
    disagrees_with_document: true
"""


def test_a_document_value_the_reference_reproduces_is_carried(root: Path) -> None:
    edit(root / "spec" / "battle" / "hash.yaml", "cases:\n", "cases:\n" + DOCUMENT_CASE % ABC)
    assert generate(root, only=MOVE_AND_HASH)[0] == 0
    text = (root / "vectors" / "battle" / "hash.json").read_text(encoding="utf-8")
    assert f'"document_states": {{"hash": "{ABC}"}}' in text


def test_a_document_value_the_reference_disagrees_with_must_be_a_quirk(root: Path) -> None:
    edit(root / "spec" / "battle" / "hash.yaml", "cases:\n", "cases:\n" + DOCUMENT_CASE % WRONG)
    status, output = generate(root, only=MOVE_AND_HASH)
    assert status == 2
    assert "spec/battle/hash.yaml: stated: the source states a different value at .hash" in output
    edit(root / "spec" / "battle" / "hash.yaml", "quirks:\n", "quirks:\n" + QUIRK)
    assert generate(root, only=MOVE_AND_HASH)[0] == 0
    text = (root / "vectors" / "battle" / "hash.json").read_text(encoding="utf-8")
    assert f'"expected": {{"output": {{"hash": "{ABC}"}}}}' in text
    assert f'"document_states": {{"hash": "{WRONG}"}}' in text


def test_a_quirk_claiming_a_disagreement_that_is_not_there_fails(root: Path) -> None:
    edit(root / "spec" / "battle" / "hash.yaml", "cases:\n", "cases:\n" + DOCUMENT_CASE % ABC)
    edit(root / "spec" / "battle" / "hash.yaml", "quirks:\n", "quirks:\n" + QUIRK)
    status, output = generate(root, only=MOVE_AND_HASH)
    assert status == 2
    assert "quirks/misprint: says the document disagrees" in output


def test_a_spec_missing_for_a_reference_algorithm_is_named(root: Path) -> None:
    (root / "spec" / "battle" / "ticket.yaml").unlink()
    status, output = generate(root)
    assert status == 2
    assert "spec/battle/ticket.yaml: missing: the reference registers 'battle.ticket'" in output


def _generated_strings() -> dict[str, list[str]]:
    """Every string in the inputs of generated vectors, by algorithm."""
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "vectors").glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            if "generated" in vector["tags"]:
                found.setdefault(data["algorithm"], []).extend(_strings(vector["input"]))
    return found


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def test_generated_sets_hold_whitespace_lower_case_escapes_and_every_plane() -> None:
    strings = _generated_strings()
    planes = {ord(c) >> 16 for texts in strings.values() for text in texts for c in text}
    assert planes == set(range(17))

    def spaced(algorithm: str) -> bool:
        return any(t != t.strip() for t in strings[algorithm])

    assert spaced("casino.bytes") and spaced("videopoker.hash")
    escaped = [t for t in strings["tenhou.seat_order"] if re.search(r"%[0-9A-F]?[a-f]", t)]
    assert len(escaped) >= 50


def test_a_lone_surrogate_round_trips_through_a_vector_file() -> None:
    text = (REPO / "vectors" / "casino" / "bytes.json").read_text(encoding="utf-8")
    assert '"client_seed": "seed\\ud800"' in text  # escaped: the file stays UTF-8
    vector = next(
        v for v in json.loads(text)["vectors"] if v["id"].startswith("casino.bytes/lone-surrogate")
    )
    assert vector["input"]["client_seed"] == "seed\ud800"
    assert vector["expected"] == {"error": "not-unicode-text"}


def test_the_chain_walks_are_guessed_costlier_than_bigger_files() -> None:
    """--jobs N starts the costliest algorithm first: ordered by file size alone, the 70 KB
    holding bustabit.chain_position's twelve walks (28 CPU seconds, the single costliest
    algorithm) started last of all and ran on alone while the other core idled."""
    from fairvec.generate import _cost_guess

    vectors = REPO / "vectors"
    walks, bigger = vectors / "bustabit" / "chain_position.json", vectors / "tenhou" / "seed.json"
    assert walks.stat().st_size < bigger.stat().st_size / 10
    assert _cost_guess(walks) > _cost_guess(bigger)
    assert _cost_guess(REPO / "vectors" / "no-such" / "file.json") == 0


def test_a_slip_in_an_output_matches_schema_is_named(root: Path) -> None:
    # a misspelt keyword is ignored by every validator: the tag would follow the wrong vectors
    edit(
        root / "spec" / "bustabit" / "crash_v2.yaml",
        "output_matches: {properties: {r: {multipleOf: 33}",
        "output_matches: {properties: {r: {multipelOf: 33}",
    )
    status, output = generate(root, only=("bustabit.crash_v2",))
    assert status == 2
    assert output.strip() == (
        "fairvec: error: spec/bustabit/crash_v2.yaml: quirks/2/output_matches/properties/r: "
        "'multipelOf' is no JSON Schema keyword (a description holding a comma inside {...}? "
        'quote it: description: "a, b")'
    ), output
