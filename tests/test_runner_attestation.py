"""The coverage attestation every report carries, ``fairvec run --suite`` on a verified
release, known-failure reasons and ``--exclude-tag``.

Every count expected here is computed from the vector files and the misbehaviour asked
for, never typed in; a release is built and signed at test time with throwaway keys.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support import (
    FIRE,
    GRASS,
    REPO,
    WATER,
    check_reports,
    fairvec,
    misbehaving,
    private_cache,
)
from support import SMALL_RELEASE as SMALL

from fairvec.cli import main
from fairvec.runner.answer_memo import MEMO_FOLDER
from fairvec.runner.results import SKIP_REASONS  # the claims add two: tests/test_claims.py
from fairvec.vectorfiles import default_vectors_root, vectors_digest

cryptography = pytest.importorskip("cryptography", reason="the fairvec[release] extra")
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from cryptography.hazmat.primitives.serialization import (  # noqa: E402
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

VECTORS = default_vectors_root()
PRINCIPAL = "release@test"


def vectors_of(relative: str, root: Path = VECTORS) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((root / relative).read_text("utf-8"))["vectors"]
    return found


def signing_key(folder: Path, name: str) -> tuple[Path, Path]:
    """A throwaway OpenSSH ed25519 key, and an allowed_signers file trusting it."""
    key = Ed25519PrivateKey.generate()
    private = folder / name
    private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    private.chmod(0o600)
    public = key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode()
    signers = folder / f"{name}.allowed_signers"
    signers.write_text(f'{PRINCIPAL} namespaces="fairvec-release" {public}\n', "utf-8")
    return private, signers


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(archive, allowed_signers, its manifest), version 1.2.0."""
    tree = tmp_path_factory.mktemp("tree")
    for name in SMALL:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, tree / name)
    keys = tmp_path_factory.mktemp("keys")
    private, signers = signing_key(keys, "maintainer")
    out = tmp_path_factory.mktemp("dist")
    build = ["release", "build", "--version", "1.2.0", "--out", str(out), "--source", str(tree)]
    assert main([*build, "--ssh-key", str(private)]) == 0
    manifest = json.loads((out / "fairvec-vectors-1.2.0.MANIFEST.json").read_text("utf-8"))
    return out / "fairvec-vectors-1.2.0.tar.gz", signers, manifest


def properties(junit: Path) -> dict[str, dict[str, list[str]]]:
    """Each <testsuite>'s properties, by name (a name may repeat)."""
    found: dict[str, dict[str, list[str]]] = {}
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        listed: dict[str, list[str]] = {}
        for item in suite.iter("property"):
            listed.setdefault(str(item.get("name")), []).append(str(item.get("value")))
        found[str(suite.get("name"))] = listed
    return found


def test_a_release_run_neither_uses_nor_learns_the_answer_memo(
    tmp_path: Path, release: tuple[Path, Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signed release's verdict rests on the release alone, not on local state
    (runner/answer_memo.py): its runs judge every answer."""
    cache = private_cache(tmp_path, monkeypatch)
    archive, signers, _ = release
    for _ in range(2):
        done = fairvec(
            "run", "--suite", archive, "--trusted-key", signers, "--bundled", "python",
        )  # fmt: skip
        assert done.status == 0, done.stdout + done.stderr
    assert cache.is_dir() and not list(cache.glob(f"{MEMO_FOLDER}/*"))


@pytest.mark.parametrize("bundled", ["python", "node"])
def test_a_verified_release_runs_and_all_three_reports_name_it(
    tmp_path: Path, release: tuple[Path, Path, dict[str, Any]], bundled: str
) -> None:
    if bundled == "node" and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    archive, signers, manifest = release
    json_path, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", "--suite", archive, "--trusted-key", signers, "--min-version", "1.2.0",
        "--json", json_path, "--junit", junit, "--no-progress", "--bundled", bundled,
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    report = check_reports(json_path, junit)
    suite = report["attestation"]["suite"]
    assert (suite["version"], suite["digest"], suite["vectors"]) == (
        manifest["version"], manifest["suite_digest"], manifest["vectors"],
    )  # fmt: skip
    assert suite["source"] == "release" and suite["location"] == str(archive)
    assert suite["signer"].startswith(PRINCIPAL)
    assert report["suite_version"] == manifest["version"]
    assert report["vectors_digest"] == manifest["suite_digest"]  # the whole release was run
    assert report["summary"]["pass"] == manifest["vectors"]
    assert f"suite 1.2.0 {manifest['suite_digest']}" in done.stdout
    assert f"signed by {PRINCIPAL}" in done.stdout
    algorithms = report["attestation"]["algorithms"]
    assert set(algorithms) == {"battle.ticket", "nardy.cuts"}  # the release's, not installed
    for name, listed in properties(junit).items():
        assert listed["suite.version"] == [manifest["version"]]
        assert listed["suite.digest"] == [manifest["suite_digest"]]
        assert listed["suite.signer"] == [suite["signer"]]
        assert listed["coverage.passed"] == [str(algorithms[name]["passed"])]


def corrupt(archive: Path, folder: Path) -> Path:
    """The archive with one byte of its compressed body flipped, beside its signature."""
    copy = folder / archive.name
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    for sibling in archive.parent.glob(f"{archive.name.removesuffix('.tar.gz')}*.sig"):
        shutil.copyfile(sibling, folder / sibling.name)
    return copy


@pytest.mark.parametrize("case", ["corrupt", "another key", "rollback", "no signature"])
def test_a_release_that_does_not_verify_is_refused_before_anything_runs(
    tmp_path: Path, release: tuple[Path, Path, dict[str, Any]], case: str
) -> None:
    archive, signers, _ = release
    options: list[str | Path] = ["--trusted-key", signers]
    if case == "corrupt":
        archive = corrupt(archive, tmp_path)
    elif case == "another key":
        options = ["--trusted-key", signing_key(tmp_path, "intruder")[1]]
    elif case == "rollback":
        options += ["--min-version", "1.3.0"]
    else:
        lone = tmp_path / archive.name
        shutil.copyfile(archive, lone)
        archive = lone
    report = tmp_path / "out" / "report.json"
    done = fairvec("run", "--suite", archive, *options, "--json", report, "--bundled", "python")
    assert done.status == 2, done.stdout
    assert done.stderr.startswith(f"fairvec: error: {archive}: release refused: ")
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert not report.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--suite", "x.tar.gz"], "--suite x.tar.gz: give --trusted-key KEY"),
        (["--trusted-key", "k.pub"], "--trusted-key and --min-version go with --suite ARCHIVE"),
        (["--min-version", "1.0.0"], "--trusted-key and --min-version go with --suite ARCHIVE"),
        (
            ["--suite", "x.tar.gz", "--trusted-key", "k", "--vectors", "v"],
            "give either --suite ARCHIVE or --vectors DIR, not both",
        ),
    ],
)
def test_suite_options_are_checked_in_one_line(options: list[str], message: str) -> None:
    done = fairvec("run", *options, "--bundled", "python")
    assert done.status == 2
    assert done.stderr.startswith(f"fairvec: error: {message}")
    assert done.stderr.count("\n") == 1


# -- what an auditor reads --------------------------------------------------------------

DECLARED = {"battle.move": [], "battle.ticket": [], "stake.dice": ["truncate"]}
SELECTED = ["battle.move", "battle.ticket", "battle.attack", "stake.dice"]


def expected_coverage(known_id: str, unsupported_id: str, crash_id: str) -> dict[str, Any]:
    """The attestation's per-algorithm entries, worked out from the vector files, the
    hello above and the misbehaviour asked for."""
    found = {}
    for algorithm in SELECTED:
        family, name = algorithm.split(".")
        vectors = vectors_of(f"{family}/{name}.json")
        declared = DECLARED.get(algorithm)
        skipped: Counter[str] = Counter()
        outcome: Counter[str] = Counter()
        for vector in vectors:
            if declared is None:
                skipped["algorithm-not-declared"] += 1
            elif vector["variant"] is not None and vector["variant"] not in declared:
                skipped["variant-not-declared"] += 1
            elif vector["id"] == unsupported_id:
                skipped["adapter-unsupported"] += 1
            else:
                outcome[{known_id: "failed", crash_id: "errored"}.get(vector["id"], "passed")] += 1
        found[algorithm] = {
            "declared": declared is not None,
            "variants_declared": declared,
            "selected": len(vectors),
            "run": sum(outcome.values()),
            "passed": outcome["passed"],
            "failed": outcome["failed"],
            "errored": outcome["errored"],
            "not_run": 0,
            "skipped": {reason: skipped[reason] for reason in SKIP_REASONS},
            "known_failures": int(any(v["id"] == known_id for v in vectors)),
            "unexpected_passes": 0,
            "pinned": None,  # no claims: nothing pinned, every output field judged
            "pinned_variants": None,
            "fresh_vectors": 0,
            "outputs_judged": "all",
        }
    return found


def test_the_attestation_says_what_was_and_was_not_checked(tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    reason = "the port reads water as stone (issue 12)"
    known.write_text(f"# tolerated for now\n{WATER}   # {reason}\nnardy.*\n", encoding="utf-8")
    json_path, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    selection = [word for algorithm in SELECTED for word in ("--algorithm", algorithm)]
    done = fairvec(  # --tier none: the accumulated vectors are test_accumulate's
        "run", *selection, "--tier", "none", "--known-failures", known,
        "--json", json_path, "--junit", junit,
        *misbehaving("--algorithms", json.dumps(DECLARED), f"wrong-output:{WATER}",
                     f"unsupported-reason:{GRASS}", f"crash:{FIRE}"),
    )  # fmt: skip
    assert done.status == 1, done.stdout + done.stderr  # the crash is a new error
    report = check_reports(json_path, junit)
    attested = report["attestation"]
    assert attested["adapter"] == {"name": "misbehaving", "version": "0", "algorithms": DECLARED}
    assert attested["selection"] == {
        "algorithm": SELECTED, "keyword": [], "tag": [], "exclude_tag": [],
    }  # fmt: skip
    expected = expected_coverage(WATER, GRASS, FIRE)
    for algorithm, entry in expected.items():
        assert attested["algorithms"][algorithm] == entry, algorithm
    suite_algorithms = {path.parent.name + "." + path.stem for path in VECTORS.glob("*/*.json")}
    assert set(attested["algorithms"]) == suite_algorithms  # the unselected ones too
    assert all(
        entry["selected"] == 0
        for name, entry in attested["algorithms"].items()
        if name not in SELECTED
    )
    assert attested["known_failures"] == [
        {"entry": WATER, "reason": reason, "line": 2, "still_failing": 1, "passing": 0,
         "not_checked": 0},
        {"entry": "nardy.*", "reason": "", "line": 3, "still_failing": 0, "passing": 0,
         "not_checked": 0},
    ]  # fmt: skip
    water = next(result for result in report["results"] if result["id"] == WATER)
    assert (water["known_failure_entry"], water["known_failure_reason"]) == (WATER, reason)

    # the terminal says the same
    assert f"  {WATER}  # {reason}: 1 still fail, 0 pass, 0 not checked" in done.stdout
    partial = [name for name, entry in expected.items() if entry["run"] < entry["selected"]]
    assert (
        f"coverage: {len(SELECTED)} of {len(suite_algorithms)} algorithm(s) selected, "
        f"{len(SELECTED) - len(partial)} with every selected vector run"
    ) in done.stdout
    # the algorithms the hello never names are one line, by family, not one line each
    undeclared = sorted(
        name for name, entry in expected.items()
        if entry["selected"] and entry["run"] == 0
        and entry["skipped"]["algorithm-not-declared"] == entry["selected"]
    )
    assert undeclared == ["battle.attack"]
    assert "  1 algorithm(s) the adapter does not declare, skipped: battle (1)" in done.stdout
    assert "  battle.attack:" not in done.stdout

    # and so does the JUnit file, suite by suite
    junit_properties = properties(junit)
    for algorithm, entry in expected.items():
        listed = junit_properties[algorithm]
        assert listed["known_failure"] == [f"{WATER}  # {reason}", "nardy.*"]
        for key in ("selected", "run", "passed", "failed", "errored", "not_run"):
            assert listed[f"coverage.{key}"] == [str(entry[key])], (algorithm, key)
        for why, count in entry["skipped"].items():
            assert listed[f"coverage.skipped.{why}"] == [str(count)]
        assert "suite.signer" not in listed  # not a release
    skipped = [
        case.find("skipped")
        for case in ET.parse(junit).getroot().iter("testcase")
        if case.get("name") == WATER
    ]
    assert skipped[0] is not None and f"known failure ({reason})" in str(skipped[0].get("message"))


def test_exclude_tag_leaves_tagged_vectors_out_and_the_suite_digest_covers_all(
    tmp_path: Path,
) -> None:
    json_path = tmp_path / "report.json"
    done = fairvec(
        "run", "--algorithm", "battle.move", "--exclude-tag", "invalid", "--exclude-tag", "edge",
        "--tier", "none", "--json", json_path, "--bundled", "python",
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    report = json.loads(json_path.read_text("utf-8"))
    kept = [v for v in vectors_of("battle/move.json") if not {"invalid", "edge"} & set(v["tags"])]
    assert 0 < len(kept) < len(vectors_of("battle/move.json"))
    assert [result["id"] for result in report["results"]] == [v["id"] for v in kept]
    assert report["vectors_digest"] == vectors_digest(kept)
    assert report["attestation"]["selection"]["exclude_tag"] == ["invalid", "edge"]
    # the suite's digest is over every vector installed, in the runner's order
    every = [v for path in sorted(VECTORS.glob("*/*.json")) for v in vectors_of(
        path.relative_to(VECTORS).as_posix())]  # fmt: skip
    suite = report["attestation"]["suite"]
    assert (suite["digest"], suite["vectors"], suite["source"]) == (
        vectors_digest(every), len(every), "installed",
    )  # fmt: skip


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_a_known_failures_line_with_two_ids_is_one_line_naming_it(tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text(f"{WATER}\n{FIRE} {GRASS}  # two on a line\n", encoding="utf-8")
    done = fairvec(
        "run", "--algorithm", "battle.move", "--known-failures", known, "--bundled", "python"
    )
    assert done.status == 2
    assert done.stderr.startswith(f"fairvec: error: --known-failures {known}:2: ")
    assert done.stderr.count("\n") == 1
