"""Issue 18, item 3: vectors for the rules real ports get wrong, on the real constants.

- bustabit v2's hybrid rule (an instant 1.00x crash when r is divisible by 33, or 101):
  real games of each chain, found by the generator walking the chain backwards, and a tag
  on every vector such a port fails;
- the constants real engines hard-code (bustabit's salts, v1's and Roobet's): generated
  sets and accumulated streams that hold them;
- opt-out tags (``input_tags``) for inputs a strict real port legitimately refuses, all
  listed in docs/tags.md.

Run as a script (``python tests/test_constants_and_tags.py MISTAKE``, through
tests/adapters/misbehaving.py's ``--mistakes``) this file patches the reference into a
port with one of those habits.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from fairvec.reference import InvalidInput, bustabit, stake
from fairvec.specs import read_yaml

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

CURRENT_SALT = "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be"
FIRST_SALT = "0000000000000000004d6ec16dafe9d8370958664c1dc422f452892264c59526"
V1_SALT = "000000000000000007a9a31ff7f07463d91af6b5454241d5faf282e5e0fe1b3a"
ROOBET_SALT = "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c"
# chain: (salt, the real game the walk starts from, its chain rule); research file
CHAINS = {
    "current": (
        CURRENT_SALT,
        "4488d92d89d0ed7fbb2ea23b219d569f63207e32fc44b957858838835c1719f1",  # 12,424,169
        "raw-bytes",
    ),
    "first": (
        FIRST_SALT,
        "5d07719b61b0abb6f1c3b17b1d69c838278f87f9b5e75077026e5fedf96c2eb2",  # 1,398,378
        "hex-text",
    ),
}
MODULI = (33, 101)


def vector_file(family: str, name: str) -> dict[str, Any]:
    path = REPO / "vectors" / family / f"{name}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def fixed(family: str, name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = vector_file(family, name)["vectors"]
    return found


def hybrid_hit(output: dict[str, Any], modulus: int) -> bool:
    """A hybrid port answers 1 where v2 answers more: r divisible, crash above 1."""
    crash = output["crash"]
    return output["r"] % modulus == 0 and isinstance(crash, float | int) and crash > 1


def previous_game(game_hash: str, rule: str) -> str:
    """The game before, by the chain rule (hashlib here, not the reference)."""
    data = game_hash.encode("ascii") if rule == "hex-text" else bytes.fromhex(game_hash)
    return hashlib.sha256(data).hexdigest()


# --- the hybrid rule ---------------------------------------------------------------------------


@pytest.mark.parametrize("chain", sorted(CHAINS))
@pytest.mark.parametrize("modulus", MODULI)
def test_hybrid_vectors_are_real_games_of_the_chain(chain: str, modulus: int) -> None:
    salt, start, rule = CHAINS[chain]
    found = {
        v["id"]: v
        for v in fixed("bustabit", "crash_v2")
        if v["id"].startswith(f"bustabit.crash_v2/hybrid-{modulus}-{chain}-chain-")
    }
    assert sorted(found) == [
        f"bustabit.crash_v2/hybrid-{modulus}-{chain}-chain-{n}@bustabit" for n in (1, 2, 3)
    ]
    distances = []
    for vector in found.values():
        output = vector["expected"]["output"]
        assert vector["input"]["salt"] == salt
        assert hybrid_hit(output, modulus), vector["id"]
        assert f"hybrid-instant-crash-{modulus}" in vector["tags"]
        assert f"salt-bustabit-{chain}" in vector["tags"]
        # the HMAC and r recomputed here, independently of the reference
        digest = hmac.new(
            salt.encode(), bytes.fromhex(vector["input"]["game_hash"]), "sha256"
        ).hexdigest()
        assert digest == output["hmac"] and int(digest[:13], 16) == output["r"]
        # a real earlier game: walking down the chain from the start reaches it
        value, steps = start, 0
        while value != vector["input"]["game_hash"]:
            value, steps = previous_game(value, rule), steps + 1
            assert steps <= 20_000, f"{vector['id']} is not below the start game"
        distances.append(steps)
    assert distances == sorted(set(distances)) and distances[0] > 0  # 1st, 2nd, 3rd found


@pytest.mark.parametrize("name", ["crash_v2", "crash_v2_outcome"])
@pytest.mark.parametrize("modulus", MODULI)
def test_hybrid_tag_is_on_exactly_the_vectors_a_hybrid_port_fails(name: str, modulus: int) -> None:
    tag = f"hybrid-instant-crash-{modulus}"
    tagged, hits = set(), set()
    for vector in fixed("bustabit", name):
        if tag in vector["tags"]:
            tagged.add(vector["id"])
        if "output" in vector["expected"] and hybrid_hit(vector["expected"]["output"], modulus):
            hits.add(vector["id"])
    assert tagged == hits and len(tagged) >= 6


def test_hybrid_port_fails_exactly_the_tagged_vectors() -> None:
    from support import misbehaving, run_port

    port = misbehaving("--mistakes", __file__, "--mistake", "hybrid-33")[1:]
    run = run_port(port, ["bustabit.crash_v2", "bustabit.crash_v2_outcome"])
    assert run.done.status == 1, run.done.stderr
    tagged = {
        v["id"]
        for name in ("crash_v2", "crash_v2_outcome")
        for v in fixed("bustabit", name)
        if "hybrid-instant-crash-33" in v["tags"]
    }
    assert run.failed == tagged
    # on its own salt too: the real games found for it
    for chain in CHAINS:
        for n in (1, 2, 3):
            assert f"bustabit.crash_v2/hybrid-33-{chain}-chain-{n}@bustabit" in run.failed
    assert "hybrid-instant-crash-33" in run.done.stdout  # the failure names the rule


# --- the constants real engines hard-code ------------------------------------------------------

PINNED = [  # (algorithm, set name, salt, variant, fixed vectors)
    ("crash_v2", "current-salt", CURRENT_SALT, "bustabit", 300),
    ("crash_v2", "first-salt", FIRST_SALT, "bustabit", 300),
    ("crash_v1", "v1-salt", V1_SALT, "bustabit", 300),
    ("crash_v1", "roobet-salt", ROOBET_SALT, "roobet", 300),
    ("games", "current-salt", CURRENT_SALT, "raw-bytes", 100),
    ("games", "first-salt", FIRST_SALT, "hex-text", 100),
]


@pytest.mark.parametrize(("name", "set_name", "salt", "variant", "count"), PINNED)
def test_each_real_salt_has_its_fixed_vectors(
    name: str, set_name: str, salt: str, variant: str, count: int
) -> None:
    pinned = [v for v in fixed("bustabit", name) if v["provenance"].get("generated") == set_name]
    assert len(pinned) == count
    assert {v["input"]["salt"] for v in pinned} == {salt}
    assert {v["variant"] for v in pinned} == {variant}
    assert len({v["input"]["game_hash"] for v in pinned}) == count


@pytest.mark.parametrize(
    ("name", "set_name", "salt", "variant"),
    [(n, s, salt, variant) for n, s, salt, variant, _ in PINNED if n != "games"],
)
def test_each_real_salt_has_a_default_tier_stream(
    name: str, set_name: str, salt: str, variant: str
) -> None:
    streams = vector_file("bustabit", name).get("accumulated", [])
    entry = next(a for a in streams if a["id"] == f"bustabit.{name}/{set_name}@{variant}")
    assert entry["tier"] == "default" and entry["count"] == 10_000
    assert entry["stream"]["input"]["salt"] == {"const": salt}


def test_every_pinned_salt_is_a_constant_of_the_specs() -> None:
    """The salts above are the specs' own (their summaries or research facts), not new."""
    text = "".join(
        p.read_text(encoding="utf-8") for p in (REPO / "spec" / "bustabit").glob("*.yaml")
    )
    for salt in (CURRENT_SALT, FIRST_SALT, V1_SALT, ROOBET_SALT):
        assert text.count(salt) >= 2, salt


# --- opt-out tags ------------------------------------------------------------------------------


@functools.cache
def specs_with_input_tags() -> list[tuple[str, dict[str, Any]]]:
    """Every spec's input tags (read once a process: 85 specs; fairvec's own reading, libyaml
    where it can, gives what yaml.safe_load does in a third of the time)."""
    found = []
    for path in sorted((REPO / "spec").glob("*/*.yaml")):
        if path.name == "fuzz.yaml":
            continue
        data = read_yaml(path, str(path.relative_to(REPO)))
        for entry in data.get("input_tags", []):
            found.append((data["id"], entry))
    return found


def test_input_tags_are_on_every_matching_vector_and_only_those() -> None:
    rules = specs_with_input_tags()
    assert rules
    by_algorithm: dict[str, list[dict[str, Any]]] = {}
    for algorithm_id, entry in rules:
        by_algorithm.setdefault(algorithm_id, []).append(entry)
    for algorithm_id, entries in by_algorithm.items():
        family, name = algorithm_id.split(".", 1)
        conditions = [
            (entry["tag"], jsonschema.Draft202012Validator(entry["when"])) for entry in entries
        ]
        for vector in fixed(family, name):
            for tag, condition in conditions:
                matches = condition.is_valid(vector["input"])
                assert (tag in vector["tags"]) == matches, (vector["id"], tag)


def test_the_unaligned_cursor_tag_covers_the_85_floats_vectors() -> None:
    vectors = fixed("stake", "floats")
    tagged = [v for v in vectors if "unaligned-cursor" in v["tags"]]
    assert len(tagged) == 85
    assert all(v["input"]["cursor"] % 4 for v in tagged)
    untagged = [v for v in vectors if v not in tagged and type(v["input"].get("cursor")) is int]
    assert all(v["input"]["cursor"] % 4 == 0 for v in untagged)


def test_a_port_refusing_unaligned_cursors_opts_out_with_one_tag(tmp_path: Path) -> None:
    from support import fairvec, misbehaving, run_port

    port = misbehaving("--mistakes", __file__, "--mistake", "refuse-unaligned-cursor")[1:]
    run = run_port(port, ["stake.floats"])
    # the vectors that expect an output (boundary-cursor-minimum-past, cursor -1, expects
    # the range's code, which such a port answers too)
    tagged = {v["id"] for v in fixed("stake", "floats") if "unaligned-cursor" in v["tags"]
              and "invalid" not in v["tags"]}  # fmt: skip
    assert run.done.status == 1 and run.failed == tagged
    done = fairvec(
        "run", "--algorithm", "stake.floats", "--tier", "none", "--exclude-tag",
        "unaligned-cursor", "--", *port,
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr


TABLE_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| ([^|]+) \|")


def opt_out_table() -> dict[str, set[str]]:
    """docs/tags.md's opt-out table: tag -> algorithms."""
    text = (REPO / "docs" / "tags.md").read_text(encoding="utf-8")
    section = text.split("## Opt-out tags", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = TABLE_ROW.match(line)
        if found:
            rows[found.group(1)] = set(re.findall(r"`([a-z0-9_.]+)`", found.group(2)))
    return rows


def test_the_tags_page_lists_every_opt_out_tag_and_nothing_else() -> None:
    table = opt_out_table()
    defined = {entry["tag"] for _algorithm, entry in specs_with_input_tags()}
    assert set(table) == defined
    carried: dict[str, set[str]] = {tag: set() for tag in defined}
    for path in sorted((REPO / "vectors").glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            for tag in defined & set(vector["tags"]):
                carried[tag].add(data["algorithm"])
    assert table == carried


def test_the_tags_page_is_linked() -> None:
    assert "docs/tags.md" in (REPO / "README.md").read_text(encoding="utf-8")
    for family in ("stake", "bustabit"):
        text = (REPO / "docs" / "families" / f"{family}.md").read_text(encoding="utf-8")
        assert "(../tags.md)" in text


# --- the generator refuses a bad condition, in one line ----------------------------------------


def spec_copy(tmp_path: Path) -> Path:
    """A root with a copy of the specs (and no vectors) to break one of them."""
    shutil.copytree(REPO / "spec", tmp_path / "spec")
    (tmp_path / "vectors").mkdir()
    return tmp_path


BROKEN = [
    (
        "bustabit/crash_v2.yaml",
        "satisfies: {properties: {r: {multipleOf: 33}",
        "satisfies: {properties: {R: {multipleOf: 33}",
        "cases/hybrid-33-current-chain-1/find/satisfies/properties: 'R' is no output field",
    ),
    (
        "bustabit/crash_v2.yaml",
        "satisfies: {properties: {r: {multipleOf: 33}",
        "satisfies: {properties: {r: {multipleOf: -33}",
        "hybrid-33-current-chain-1/find/satisfies: properties/r/multipleOf: not a JSON Schema",
    ),
    (
        "bustabit/crash_v2.yaml",
        "next: {algorithm: bustabit.previous_hash, variant: raw-bytes,",
        "next: {algorithm: bustabit.previous_hash, variant: raw,",
        "cases/hybrid-33-current-chain-1/find/next/variant: name the chain rule",
    ),
    (
        "stake/floats.yaml",
        "when: {required: [cursor], properties: {cursor:",
        "when: {required: [cursor], properties: {cursr:",
        "input_tags/0/when/properties: 'cursr' is no input field of stake.floats",
    ),
]


@pytest.mark.parametrize(("spec", "old", "new", "message"), BROKEN)
def test_a_bad_condition_is_refused_in_one_line(
    tmp_path: Path, spec: str, old: str, new: str, message: str
) -> None:
    from support import fairvec

    root = spec_copy(tmp_path)
    path = root / "spec" / spec
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    algorithm = spec.removesuffix(".yaml").replace("/", ".")
    done = fairvec("generate", "--root", root, "--algorithm", algorithm)
    assert done.status == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"spec/{spec}" in lines[0] and message in lines[0], lines[0]


# --- as a script: the reference with one habit, as an adapter ----------------------------------


def _hybrid_33(r: int, reading: str) -> tuple[float, float]:
    x, crash = RIGHT_V2_MULTIPLIER(r, reading)
    return (x, 1.0) if r % 33 == 0 else (x, crash)


def _refuse_unaligned(
    server_seed: str, client_seed: str, nonce: int, cursor: int, count: int
) -> list[float]:
    if cursor % 4:
        raise InvalidInput("cursor-out-of-range", "this verifier reads whole floats only")
    return RIGHT_FLOATS(server_seed, client_seed, nonce, cursor, count)


RIGHT_V2_MULTIPLIER = bustabit.v2_multiplier
RIGHT_FLOATS = stake.generate_floats


def make_mistake(mistake: str) -> None:
    """The port: tests/adapters/misbehaving.py answers with the reference so changed."""
    if mistake == "hybrid-33":
        bustabit.v2_multiplier = _hybrid_33  # type: ignore[assignment]
    elif mistake == "refuse-unaligned-cursor":
        stake.generate_floats = _refuse_unaligned  # type: ignore[assignment]
    else:
        raise SystemExit(f"no such mistake: {mistake}")
