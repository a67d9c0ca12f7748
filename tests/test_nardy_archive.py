"""nardy.archive: the spec's archives are the committed files, and the bound holds at its edge.

The vectors themselves (made by `fairvec generate`, run by both bundled adapters) check the
codes; these tests check what a vector cannot: that each case's base64 is the file its
comment names, byte for byte, as recorded in upstream/nardy/archives/SHA256SUMS (so a case can
not drift from the archiver's output), that a member of exactly 1 MiB is read by both
ports (its output, 1 MiB of text, is too large for a vector), and that the 'archive' extra
is checked whole before `fairvec generate` starts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import HANG, REPO

ARCHIVES = REPO / "upstream" / "nardy" / "archives"
PASSWORD = "T7rQm2XvK9pLw4Zd"
pytest.importorskip("pyzipper")
pytest.importorskip("py7zr")


def archive_files() -> dict[str, Path]:
    return {path.name: path for path in ARCHIVES.iterdir() if path.suffix in {".zip", ".7z"}}


def test_every_archive_is_the_one_recorded() -> None:
    recorded = dict(
        (name, digest)
        for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$",
                                       (ARCHIVES / "SHA256SUMS").read_text(), re.M)
    )  # fmt: skip
    present = {name: hashlib.sha256(path.read_bytes()).hexdigest()
               for name, path in archive_files().items()}  # fmt: skip
    assert present == recorded


def test_each_case_holds_the_file_its_comment_names() -> None:
    spec = yaml.safe_load((REPO / "spec" / "nardy" / "archive.yaml").read_text(encoding="utf-8"))
    files = archive_files()
    used = set()
    for case in spec["cases"]:
        named = re.match(r"archives/(\S+?\.(?:zip|7z))", case.get("comment", ""))
        if named is None:
            assert not case["input"]["archive"].startswith(("UEsDB", "N3q8ryc")), case["name"]
            continue
        name = named.group(1)
        assert name in files, f"{case['name']}: no file {name}"
        wanted = base64.b64encode(files[name].read_bytes()).decode("ascii")
        assert case["input"]["archive"] == wanted, f"{case['name']}: not the bytes of {name}"
        used.add(name)
    assert set(files) - used == {"zipcrypto-at-bound.zip"}  # read by the bound test below


def at_bound_input() -> dict[str, object]:
    data = (ARCHIVES / "zipcrypto-at-bound.zip").read_bytes()
    return {"archive": base64.b64encode(data).decode(), "password": PASSWORD,
            "cut1": 7, "cut2": 7, "count": 1}  # fmt: skip


def test_the_reference_reads_a_member_of_exactly_the_bound() -> None:
    from fairvec.reference import compute

    output = compute("nardy.archive", at_bound_input(), None)
    assert len(output["sequence"]) == 1 << 20 and output["rolls"] == ["11"]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_node_port_reads_a_member_of_exactly_the_bound() -> None:
    script = (
        "const a = require('./adapters/node/families/nardy.js')['nardy.archive'];"
        "const out = a.run(JSON.parse(require('fs').readFileSync(0, 'utf8')));"
        "console.log(JSON.stringify([out.sequence.length, out.rolls]));"
    )
    done = subprocess.run(["node", "-e", script], input=json.dumps(at_bound_input()),
                          capture_output=True, text=True, cwd=REPO, timeout=HANG)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [1 << 20, ["11"]]


def test_generate_names_each_missing_module_of_the_archive_extra(tmp_path: Path) -> None:
    """pyzipper missing while py7zr is there: the up-front check names pyzipper (it used to
    check one module per algorithm, and generation then failed on the import)."""
    hidden = tmp_path / "hidden" / "pyzipper"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('hidden')\n")
    script = (
        "from fairvec.extras import require_for_algorithms\n"
        "require_for_algorithms(['nardy.*'], 'fairvec generate')\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "hidden")}
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          env=environment, timeout=HANG, cwd=tmp_path)  # fmt: skip
    assert done.returncode != 0
    assert "needs pyzipper, from the 'archive' extra" in done.stderr
