"""Hardening round 3 (issue 16): how fairvec reads vector files, spec files and the JSON
beside them. Whatever a path names (a FIFO, a device, a 3 GB sparse file, a YAML alias
bomb, a 5,000-digit integer, a key given twice, NaN, an id given twice), fairvec answers
in one line naming the file, with exit status 2: it never hangs, never eats the machine's
memory and never ends in "internal error".

Every command runs in a child with a timeout and a bound on its address space, so a
regression fails the test instead of blocking the suite or the machine."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import FAIRVEC, REPO, Completed, GiB, make_special

from fairvec.errors import FairvecError
from fairvec.jsonio import MAX_NESTING
from fairvec.regular_files import VECTOR_FILE_LIMIT
from fairvec.vectorfiles import SCHEMA_NAME, ValidationCache, vector_file_paths

KINDS = ["fifo", "dev-zero", "sparse"]
# What the one line says of each kind of file (regular_files.kind_of, _check_size).
SAYS = {"fifo": "a FIFO", "dev-zero": "a character device", "sparse": "3,221,225,472 bytes"}
BOUND = 30  # seconds: every refusal here takes well under one


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own: a verdict cached by another test (or by the
    user's runs) must not decide this one."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRVEC_CACHE_DIR", str(folder))
    monkeypatch.delenv("FAIRVEC_NO_CACHE", raising=False)
    monkeypatch.delenv("FAIRVEC_NO_ORJSON", raising=False)
    return folder


@pytest.fixture(params=["orjson", "json"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways fairvec parses: with orjson (the fast extra) and without it."""
    if request.param == "json":
        monkeypatch.setenv("FAIRVEC_NO_ORJSON", "1")
    return str(request.param)


def _bounded_memory() -> None:
    # /dev/zero or a 3 GB file read whole would take the machine's memory: a regression
    # fails with MemoryError here instead
    resource.setrlimit(resource.RLIMIT_AS, (2 * GiB, 2 * GiB))


def fairvec(*arguments: str | Path, timeout: float = BOUND) -> Completed:
    """The installed command, as support.fairvec, with a short timeout (a hang fails the
    test) and a bounded address space."""
    done = subprocess.run(
        [FAIRVEC, *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tempfile.gettempdir(),
        preexec_fn=_bounded_memory,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def one_line_exit_2(done: Completed, *parts: str) -> str:
    assert done.status == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def replace(path: Path, kind: str) -> None:
    """Put something that is not a small regular file where ``path`` was."""
    path.unlink()
    make_special(path, kind)


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    """A vectors folder (the schema beside the battle family) to break at will."""
    root = tmp_path / "vectors"
    root.mkdir()
    shutil.copy(REPO / "vectors" / SCHEMA_NAME, root)
    shutil.copytree(REPO / "vectors" / "battle", root / "battle")
    return root


@pytest.fixture
def repo(tmp_path: Path, vectors: Path) -> Path:
    """A repository root for ``fairvec generate``: the specs and the battle vectors."""
    shutil.copytree(REPO / "spec", tmp_path / "spec")
    return tmp_path


MOVE = Path("battle") / "move.json"


def run_move(vectors: Path) -> Completed:
    return fairvec("run", "--bundled", "python", "--vectors", vectors, "--algorithm", "battle.move")


def generate_move(repo: Path, *extra: str) -> Completed:
    return fairvec("generate", "--root", repo, "--algorithm", "battle.move", *extra)


def edit_bytes(path: Path, change: Callable[[bytes], bytes]) -> None:
    before = path.read_bytes()
    after = change(before)
    assert after != before
    path.write_bytes(after)


# -- 1. only regular files, of a bounded size ----------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_run_refuses_a_vector_file_that_is_not_a_small_regular_file(
    vectors: Path, kind: str
) -> None:
    replace(vectors / MOVE, kind)
    one_line_exit_2(run_move(vectors), str(vectors / MOVE), SAYS[kind])


@pytest.mark.parametrize("kind", KINDS)
def test_run_refuses_an_unselected_vector_file_that_is_not_a_small_regular_file(
    vectors: Path, kind: str
) -> None:
    """Read for the suite's digest on another thread, during the run: its error is still
    the run's one line (and the FIFO never hangs it)."""
    unselected = vectors / "battle" / "ticket.json"
    replace(unselected, kind)
    one_line_exit_2(run_move(vectors), str(unselected), SAYS[kind])


@pytest.mark.parametrize("check", [False, True], ids=["generate", "check"])
@pytest.mark.parametrize("kind", KINDS)
def test_generate_refuses_a_vector_file_that_is_not_a_small_regular_file(
    repo: Path, kind: str, check: bool
) -> None:
    target = repo / "vectors" / MOVE
    replace(target, kind)
    before = os.lstat(target)
    done = generate_move(repo, *(["--check"] if check else []))
    one_line_exit_2(done, str(target), SAYS[kind])
    after = os.lstat(target)  # left as it was: not written over, not removed
    assert (after.st_mode, after.st_size, after.st_ino) == (
        before.st_mode,
        before.st_size,
        before.st_ino,
    )


@pytest.mark.parametrize("kind", KINDS)
def test_generate_refuses_a_spec_file_that_is_not_a_small_regular_file(
    repo: Path, kind: str
) -> None:
    replace(repo / "spec" / "battle" / "move.yaml", kind)
    one_line_exit_2(generate_move(repo, "--check"), "spec/battle/move.yaml", SAYS[kind])


@pytest.mark.parametrize("kind", KINDS)
def test_generate_refuses_a_full_tier_file_that_is_not_a_small_regular_file(
    repo: Path, kind: str
) -> None:
    """A JSON file read through read_json (here a committed full-tier digest file)."""
    target = repo / "spec" / "battle" / "attack.accumulated.json"
    replace(target, kind)
    done = fairvec("generate", "--root", repo, "--algorithm", "battle.attack", "--check")
    one_line_exit_2(done, "attack.accumulated.json", SAYS[kind])


@pytest.mark.parametrize("cache", ["validation", "digests"])
def test_a_cache_file_that_is_a_fifo_is_ignored(vectors: Path, own_cache: Path, cache: str) -> None:
    """The caches are best effort: one that cannot be read is a miss, never a hang."""
    own_cache.mkdir()
    path = ValidationCache.open().path if cache == "validation" else own_cache / "digests.json"
    assert path is not None
    os.mkfifo(path)
    done = run_move(vectors)
    assert done.status == 0, done.stdout + done.stderr
    assert path.is_file()  # written over by the run: the next one is a hit


def test_the_sparse_file_bound_is_the_documented_one() -> None:
    text = (REPO / "docs" / "vector-format.md").read_text(encoding="utf-8")
    assert f"{VECTOR_FILE_LIMIT // 2**20} MiB" in text


# -- 2. YAML alias bombs and depth -------------------------------------------------------


def laughs() -> str:
    """A "billion laughs": ten aliases of ten aliases, nine times over (10^10 strings)."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def million() -> str:
    """A million-item anchor used a thousand times."""
    items = ",".join(["0"] * 1_000_000)
    return f"big: &big [{items}]\nuses: [{', '.join(['*big'] * 1000)}]\n"


def deep() -> str:
    """A mapping 20,000 levels deep."""
    return "x: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n"


@pytest.mark.parametrize(
    ("bomb", "says"),
    [
        (laughs, "aliases"),
        (million, "more than 20,000 values"),  # the anchor alone (issue 34: refused after 88 s)
        (deep, f"more than {MAX_NESTING} levels"),
    ],
    ids=["billion-laughs", "million-times-thousand", "20000-deep"],
)
@pytest.mark.own_process  # its CPU bound counts fairvec's: a child's, not this process's
def test_a_yaml_bomb_in_a_spec_file_is_refused_fast(
    repo: Path, bomb: Callable[[], str], says: str
) -> None:
    path = repo / "spec" / "battle" / "move.yaml"
    path.write_text("id: battle.move\n" + bomb(), encoding="utf-8")
    # CPU time, not wall time: the same on a loaded machine (a bomb used to cost minutes)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = generate_move(repo, "--check")
    one_line_exit_2(done, "spec/battle/move.yaml", says)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 20


@pytest.mark.parametrize("form", ["block", "flow"])
def test_a_spec_of_too_many_values_is_refused_while_composed(
    repo: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """Counted as they are composed, so the refusal comes at the limit, not at the end of
    the file (issue 34: a million-item anchor was composed whole, 88 s, before its aliases
    were counted). The limit is lowered to keep the test cheap; the line named shows where
    composing stopped."""
    from fairvec import specs

    monkeypatch.setattr(specs, "NODE_LIMIT", 1000)
    if form == "block":
        text = "id: battle.move\nbig:\n" + "".join(f"  - {n}\n" for n in range(5000))
    else:
        text = "id: battle.move\nbig: [" + ",\n  ".join(map(str, range(5000))) + "]\n"
    path = repo / "spec" / "battle" / "move.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FairvecError, match="holds more than 1,000 values") as refused:
        specs.load_spec(path, repo / "spec")
    line = int(str(refused.value).split("line ")[1].split(":")[0])
    assert 990 <= line <= 1010, refused.value  # of 5,002 lines: stopped at the limit


def test_an_alias_that_contains_itself_is_refused(repo: Path) -> None:
    path = repo / "spec" / "battle" / "move.yaml"
    path.write_text("id: battle.move\nloop: &loop [1, *loop]\n", encoding="utf-8")
    one_line_exit_2(generate_move(repo, "--check"), "spec/battle/move.yaml")


def test_the_specs_anchors_and_aliases_still_load() -> None:
    """spec/videopoker/game.yaml repeats a worked example's states by an alias: allowed,
    as every alias within the bound is."""
    from fairvec.specs import load_spec

    path = REPO / "spec" / "videopoker" / "game.yaml"
    assert "*worked-example" in path.read_text(encoding="utf-8")
    spec = load_spec(path, REPO / "spec")
    states = [case["document"]["states"] for case in spec.data["cases"] if "document" in case]
    assert any(states.count(one) > 1 for one in states)


# -- 3. integers beyond Python's int-str conversion limit --------------------------------

HUGE = b"9" * 5000


def with_round_num(raw: bytes, text: bytes) -> bytes:
    """The first vector's round_num written as ``text``."""
    return re.sub(rb'"round_num": \d+', b'"round_num": ' + text, raw, count=1)


@pytest.mark.parametrize("python_bound", ["default", "off"])
def test_a_vector_file_with_a_5000_digit_integer_is_one_line(
    vectors: Path, monkeypatch: pytest.MonkeyPatch, python_bound: str
) -> None:
    """Refused also where Python's own bound is off (its conversion takes quadratic time:
    a 64 MiB digit string would take hours)."""
    if python_bound == "off":
        monkeypatch.setenv("PYTHONINTMAXSTRDIGITS", "0")
    edit_bytes(vectors / MOVE, lambda raw: with_round_num(raw, HUGE))
    one_line_exit_2(run_move(vectors), str(vectors / MOVE), "digits")


def test_a_full_tier_file_with_a_5000_digit_integer_is_one_line(repo: Path) -> None:
    edit_bytes(
        repo / "spec" / "battle" / "attack.accumulated.json",
        lambda raw: raw.replace(b"{", b'{"huge": ' + HUGE + b", ", 1),
    )
    done = fairvec("generate", "--root", repo, "--algorithm", "battle.attack", "--check")
    one_line_exit_2(done, "attack.accumulated.json", "digits")


def test_a_spec_file_with_a_5000_digit_integer_is_one_line(repo: Path) -> None:
    edit_bytes(
        repo / "spec" / "battle" / "move.yaml",
        lambda raw: raw.replace(b"round_num: 0,", b"round_num: " + HUGE + b",", 1),
    )
    one_line_exit_2(generate_move(repo, "--check"), "spec/battle/move.yaml", "digits")


# -- 4. a vector id given twice ----------------------------------------------------------


def _first_vector_twice(raw: bytes) -> bytes:
    opening = raw.index(b'  "vectors": [\n') + len(b'  "vectors": [\n')
    line = raw[opening : raw.index(b"\n", opening)].rstrip(b",")
    return raw[:opening] + line + b",\n" + raw[opening:]


def test_run_refuses_a_vector_file_with_an_id_twice(vectors: Path, parser: str) -> None:
    edit_bytes(vectors / MOVE, _first_vector_twice)
    one_line_exit_2(run_move(vectors), str(vectors / MOVE), "'battle.move/fire'", "twice")


def test_generate_refuses_to_write_an_id_twice(repo: Path) -> None:
    """A case named like a vector of a generated set (random-0) gets the same id."""
    edit_bytes(
        repo / "spec" / "battle" / "move.yaml",
        lambda raw: raw.replace(
            b"generated:\n",
            b"  - name: random-0\n    input: {server_seed: s, battle_id: b, player_address: a,"
            b" round_num: 2, player_number: 1}\ngenerated:\n",
            1,
        ),
    )
    before = (repo / "vectors" / MOVE).read_bytes()
    one_line_exit_2(generate_move(repo), "spec/battle/move.yaml", "'battle.move/random-0'")
    assert (repo / "vectors" / MOVE).read_bytes() == before


def committed_ids() -> Iterator[tuple[Path, list[str]]]:
    for path in vector_file_paths(REPO / "vectors"):
        data = json.loads(path.read_bytes())
        ids = [v["id"] for v in data["vectors"]] + [a["id"] for a in data.get("accumulated", [])]
        yield path, ids


def test_every_committed_vector_file_has_unique_ids() -> None:
    checked = 0
    for path, ids in committed_ids():
        twice = sorted(one for one, count in Counter(ids).items() if count > 1)
        assert not twice, f"{path}: ids given twice: {twice[:5]}"
        checked += 1
    assert checked > 70


# -- 5. strict JSON: unique keys, finite numbers -----------------------------------------


def _second_vectors_key(raw: bytes) -> bytes:
    assert raw.endswith(b"\n  ]\n}\n")
    return raw[: -len(b"\n}\n")] + b',\n  "vectors": []\n}\n'


def _key_twice_in_an_input(raw: bytes) -> bytes:
    return raw.replace(b'"input": {', b'"input": {"round_num": 1, ', 1)


@pytest.mark.parametrize(
    ("change", "says"),
    [(_second_vectors_key, "'vectors'"), (_key_twice_in_an_input, "'round_num'")],
    ids=["top-level", "nested"],
)
def test_run_refuses_a_key_given_twice(
    vectors: Path, parser: str, change: Callable[[bytes], bytes], says: str
) -> None:
    edit_bytes(vectors / MOVE, change)
    one_line_exit_2(run_move(vectors), str(vectors / MOVE), says, "twice")


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1E+400"])
def test_run_refuses_a_non_finite_number(vectors: Path, parser: str, literal: bytes) -> None:
    edit_bytes(vectors / MOVE, lambda raw: with_round_num(raw, literal))
    one_line_exit_2(run_move(vectors), str(vectors / MOVE), literal.decode())


def test_a_full_tier_file_with_a_key_twice_is_refused(repo: Path) -> None:
    """read_json is strict for every JSON file fairvec reads, not only vector files."""
    edit_bytes(
        repo / "spec" / "battle" / "attack.accumulated.json",
        lambda raw: raw.replace(b"{", b'{"vectors": {}, ', 1),
    )
    done = fairvec("generate", "--root", repo, "--algorithm", "battle.attack", "--check")
    one_line_exit_2(done, "attack.accumulated.json", "'vectors'", "twice")


def test_a_cache_entry_of_an_older_fairvec_does_not_vouch_for_a_file(
    vectors: Path, own_cache: Path, parser: str
) -> None:
    """The validation cache once said "valid" of bytes a stricter fairvec refuses (a key
    twice): an entry written before these checks must not let such a file through."""
    from fairvec import __version__
    from fairvec.vectorfiles import vector_schema

    edit_bytes(vectors / MOVE, _key_twice_in_an_input)
    import hashlib

    schema = hashlib.sha256(json.dumps(vector_schema(), sort_keys=True).encode()).hexdigest()
    own_cache.mkdir()
    sha = hashlib.sha256((vectors / MOVE).read_bytes()).hexdigest()
    for how in ("orjson", "orjson-lines", "json"):
        (own_cache / f"validated-{__version__}-{schema[:16]}.json").write_text(
            json.dumps({sha: how}), encoding="utf-8"
        )
        one_line_exit_2(run_move(vectors), str(vectors / MOVE), "'round_num'", "twice")


def test_a_refused_file_is_refused_again_on_the_next_run(vectors: Path, parser: str) -> None:
    edit_bytes(vectors / MOVE, _second_vectors_key)
    for _ in range(2):
        one_line_exit_2(run_move(vectors), "'vectors'")


def test_good_files_still_run_and_are_cached(vectors: Path, parser: str) -> None:
    for _ in range(2):
        done = run_move(vectors)
        assert done.status == 0, done.stdout + done.stderr
    entries = json.loads(Path(str(ValidationCache.open().path)).read_bytes())
    assert len(entries) == 1


@pytest.mark.parametrize("number", [".nan", ".inf", "-.inf", "1.0e+400"])
def test_a_spec_number_json_cannot_hold_is_refused_not_written(repo: Path, number: str) -> None:
    """YAML reads .nan and .inf; a vector file written from one would hold bare NaN, which
    fairvec run (rightly) refuses: the generator refuses it first, naming the line."""
    path = repo / "spec" / "battle" / "move.yaml"
    text = path.read_text(encoding="utf-8")
    assert "minimum: 1," in text
    path.write_text(text.replace("minimum: 1,", f"minimum: {number},", 1), encoding="utf-8")
    written = repo / "vectors" / MOVE
    before = written.read_bytes()
    done = generate_move(repo)
    one_line_exit_2(done, "spec/battle/move.yaml", "line ", "not a finite number")
    assert written.read_bytes() == before


def test_a_constraint_that_is_no_number_is_refused(repo: Path) -> None:
    """YAML reads 1e400 (no dot) as text: a "minimum" that is text is the spec's mistake,
    named by the spec schema, not a comparison failing inside the generator."""
    path = repo / "spec" / "battle" / "move.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("minimum: 1,", "minimum: 1e400,", 1), encoding="utf-8")
    one_line_exit_2(generate_move(repo), "spec/battle/move.yaml", "minimum", "number")
