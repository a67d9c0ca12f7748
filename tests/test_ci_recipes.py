"""The CI recipes of docs/ci.md, run for real: docs/ci/fairvec-gate.sh, and the `run:` steps
of docs/ci/github-actions.yml, against a release built and signed here with throwaway keys
(made by the real ssh-keygen and minisign), fetched from a file:// URL or a folder, checked
by those tools, then run with the bundled Python adapter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import FAIRVEC, HANG, REPO, check_reports, needs_fairvec_command

from fairvec.cli import main

pytest.importorskip("cryptography", reason="the fairvec[release] extra")
SSH_KEYGEN, MINISIGN = shutil.which("ssh-keygen"), shutil.which("minisign")
pytestmark = [
    pytest.mark.skipif(
        SSH_KEYGEN is None or MINISIGN is None,
        reason="ssh-keygen and minisign (Debian packages openssh-client, minisign) are absent",
    ),
    needs_fairvec_command,  # the recipes run $FAIRVEC, one word
]
SCRIPT = REPO / "docs" / "ci" / "fairvec-gate.sh"
WORKFLOW = REPO / "docs" / "ci" / "github-actions.yml"
VERSION = "2.0.1"
PRINCIPAL = "release@test"
ADAPTER = [sys.executable, "-P", "-m", "fairvec.adapters.python"]
SMALL = (
    "spec/spec.schema.json",
    "spec/nardy/cuts.yaml",
    "vectors/vectors.schema.json",
    "vectors/nardy/cuts.json",
    "runner/schemas/protocol.schema.json",
    "runner/schemas/report.schema.json",
    "docs/adapter-protocol.md",
)


def tool(*command: str | Path) -> None:
    subprocess.run([str(word) for word in command], check=True, capture_output=True, timeout=HANG)


def ssh_key(folder: Path, principal: str) -> tuple[Path, Path]:
    """(private key, allowed_signers) made by ssh-keygen itself."""
    folder.mkdir(parents=True, exist_ok=True)
    private = folder / "id_ed25519"
    keygen = SSH_KEYGEN or "ssh-keygen"
    tool(keygen, "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", private)
    kind, blob, *_ = (folder / "id_ed25519.pub").read_text("utf-8").split()
    signers = folder / "allowed_signers"
    signers.write_text(f'{principal} namespaces="fairvec-release" {kind} {blob}\n', "utf-8")
    return private, signers


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A release folder as a maintainer publishes it, and the keys that check it."""
    tree = tmp_path_factory.mktemp("tree")
    for name in SMALL:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, tree / name)
    keys = tmp_path_factory.mktemp("keys")
    private, signers = ssh_key(keys / "ssh", PRINCIPAL)
    minisign_public, minisign_secret = keys / "minisign.pub", keys / "minisign.key"
    tool(MINISIGN or "minisign", "-G", "-W", "-p", minisign_public, "-s", minisign_secret)
    dist = tmp_path_factory.mktemp("dist")
    build = ["release", "build", "--version", VERSION, "--out", str(dist), "--source", str(tree)]
    signing = ["--ssh-key", str(private), "--minisign-key", str(minisign_secret)]
    assert main([*build, *signing]) == 0
    return {"dist": dist, "signers": signers, "minisign": minisign_public}


def gate_env(url: str, key: Path, **more: str) -> dict[str, str]:
    return {
        **os.environ,
        "FAIRVEC_VERSION": VERSION,
        "FAIRVEC_RELEASE_URL": url,
        "FAIRVEC_TRUSTED_KEY": str(key),
        "FAIRVEC_PIP": "",  # fairvec is installed already: the test must not reinstall it
        "FAIRVEC": FAIRVEC,
        **more,
    }


def gate(folder: Path, env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(SCRIPT), *arguments],
        cwd=folder, env=env, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip


def manifest_of(published: dict[str, Path]) -> dict[str, Any]:
    text = (published["dist"] / f"fairvec-vectors-{VERSION}.MANIFEST.json").read_text("utf-8")
    found: dict[str, Any] = json.loads(text)
    return found


def check_passing_run(folder: Path, published: dict[str, Path], signer: str) -> None:
    reports = folder / "fairvec-reports"
    report = check_reports(reports / "fairvec.json", reports / "fairvec.xml")
    manifest = manifest_of(published)
    suite = report["attestation"]["suite"]
    assert (suite["version"], suite["digest"], suite["source"]) == (
        VERSION, manifest["suite_digest"], "release",
    )  # fmt: skip
    assert suite["signer"].startswith(signer)
    assert report["success"] and report["summary"]["pass"] == manifest["vectors"]


@pytest.mark.parametrize("key", ["ssh", "minisign"])
def test_the_shell_recipe_gates_on_a_verified_release(
    tmp_path: Path, published: dict[str, Path], key: str
) -> None:
    # over a file:// URL for one key, from a plain folder for the other
    if key == "ssh":
        env = gate_env(published["dist"].as_uri(), published["signers"])
    else:
        env = gate_env(str(published["dist"]), published["minisign"])
    done = gate(tmp_path, env, "all", "--", *ADAPTER)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"verified fairvec-vectors-{VERSION}" in done.stdout
    check_passing_run(tmp_path, published, PRINCIPAL if key == "ssh" else "minisign key")


@pytest.mark.parametrize("case", ["another key", "tampered manifest"])
def test_the_shell_recipe_stops_before_the_run_when_the_tools_refuse(
    tmp_path: Path, published: dict[str, Path], case: str
) -> None:
    source, key = published["dist"], published["signers"]
    if case == "another key":
        key = ssh_key(tmp_path / "intruder", PRINCIPAL)[1]
    else:
        source = Path(shutil.copytree(source, tmp_path / "dist"))
        manifest = source / f"fairvec-vectors-{VERSION}.MANIFEST.json"
        manifest.write_text(manifest.read_text("utf-8").replace(VERSION, "9.9.9"), "utf-8")
        # a consistent SHA256SUMS: only the signature can catch it
        sums = subprocess.run(
            ["sha256sum", f"fairvec-vectors-{VERSION}.tar.gz", manifest.name],
            cwd=source, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        (source / "SHA256SUMS").write_text(sums, "utf-8")
    done = gate(tmp_path, gate_env(str(source), key), "all", "--", *ADAPTER)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ssh-keygen does not accept its signature" in done.stderr
    assert not (tmp_path / "fairvec-reports").exists()


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_the_shell_recipe_names_a_missing_setting(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("FAIRVEC_")}
    done = gate(tmp_path, env, "fetch")
    assert done.returncode == 2
    assert done.stderr == "fairvec-gate: set FAIRVEC_VERSION (the release to pin, e.g. 1.3.0)\n"


def test_the_github_workflow_has_the_steps_and_they_run(
    tmp_path: Path, published: dict[str, Path]
) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    runs = [step["run"] for step in steps if "run" in step]
    assert [command.split()[:3] for command in runs] == [
        ["sh", "ci/fairvec-gate.sh", step] for step in ("install", "fetch", "verify", "run")
    ]
    publish = steps[-1]
    assert publish["uses"].startswith("actions/upload-artifact@")
    assert publish["if"] == "${{ !cancelled() }}"  # the report is published when tests fail
    assert publish["with"]["path"].rstrip("/") == workflow["env"]["FAIRVEC_REPORTS"]

    # the run: steps, in order, as the runner's bash runs them, with the test's release
    (tmp_path / "ci").mkdir()
    shutil.copyfile(SCRIPT, tmp_path / "ci" / "fairvec-gate.sh")
    env = {
        **workflow["env"],
        **gate_env(published["dist"].as_uri(), published["signers"]),
        "FAIRVEC_SIGNER": PRINCIPAL,
        "ADAPTER": " ".join(ADAPTER),
    }
    for command in runs:
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG,
        )  # fmt: skip
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    check_passing_run(tmp_path, published, PRINCIPAL)
