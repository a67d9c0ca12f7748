"""docs/porting.md's table of JSON decoders and lone surrogates is what the decoders on this
machine do with a real vector's request line (PHP, Perl, Node.js, Python, where present),
and it names every common decoder (issue 36: it named Go and Rust only, and PHP's
json_decode refuses the whole line too)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from support import HANG, REPO

VECTOR = "battle.move/shape-surrogate-server-seed"
# Each decoder: the table row's first cell starts with it; the program reads one request line
# on stdin and prints refuses, replaces or keeps for the input's server_seed.
DECODERS: dict[str, list[str]] = {
    "PHP `json_decode`": [
        "php", "-r",
        '$v = json_decode(fgets(STDIN), true); if ($v === null) { echo "refuses"; } else '
        '{ echo str_contains($v["input"]["server_seed"], "\\u{FFFD}") ? "replaces" : "keeps"; }',
    ],
    "Perl `JSON::PP`": [
        "perl", "-MJSON::PP", "-e",
        'my $v = eval { JSON::PP->new->decode(scalar <STDIN>) }; if (!$v) { print "refuses" } '
        'else { print(($v->{input}{server_seed} =~ /\\x{FFFD}/) ? "replaces" : "keeps") }',
    ],
    "JavaScript `JSON.parse`": [
        "node", "-e",
        'let s; try { s = JSON.parse(require("fs").readFileSync(0, "utf8")).input.server_seed }'
        ' catch { process.stdout.write("refuses"); process.exit(0) }'
        ' process.stdout.write(s.includes("\\ufffd") ? "replaces" : "keeps")',
    ],
    "Python `json`": [
        sys.executable, "-c",
        "import json, sys\n"
        "try: s = json.loads(sys.stdin.readline())['input']['server_seed']\n"
        "except ValueError: print('refuses', end=''); raise SystemExit\n"
        "print('replaces' if '\\ufffd' in s else 'keeps', end='')",
    ],
}  # fmt: skip
# Every common decoder the table must name (the languages ports are written in).
COMMON = ["PHP", "Perl", "Rust", ".NET", "Swift", "Go", "JavaScript", "Python", "Java"]


def _table() -> dict[str, tuple[str, str]]:
    """porting.md section 5's rows: decoder -> (what it does, needs marked)."""
    text = (REPO / "docs" / "porting.md").read_text(encoding="utf-8")
    section = text[text.index("## 5. Lone surrogates") :]
    section = section[: section.index("\n## ", 1)]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 4 and cells[2] in ("yes", "no"):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def _request_line() -> bytes:
    """The request line of a real vector holding a lone surrogate (ASCII JSON, \\ud800)."""
    family, _ = VECTOR.split(".", 1)
    path = REPO / "vectors" / family / "move.json"
    vector = next(v for v in json.loads(path.read_text("utf-8"))["vectors"] if v["id"] == VECTOR)
    return (json.dumps({"id": VECTOR, "input": vector["input"]}) + "\n").encode("ascii")


def test_the_table_names_every_common_decoder() -> None:
    named = list(_table())
    missing = [language for language in COMMON if not any(row.startswith(f"{language} ")
                                                          for row in named)]  # fmt: skip
    assert not missing, f"docs/porting.md section 5: no row for {missing}"


@pytest.mark.parametrize("decoder", list(DECODERS))
def test_each_decoder_here_does_what_the_table_says(decoder: str) -> None:
    program = DECODERS[decoder]
    if shutil.which(program[0]) is None:
        pytest.skip(f"{program[0]} is not installed here")
    done = subprocess.run(program, input=_request_line(), capture_output=True, timeout=HANG)
    if decoder.startswith("Perl") and b"Can't locate" in done.stderr:
        pytest.skip("JSON::PP is not installed here")
    found = done.stdout.decode()
    assert found in ("refuses", "replaces", "keeps"), done.stderr
    says, needs = next(row for name, row in _table().items() if name.startswith(decoder))
    assert re.match(found, says), f"{decoder}: the table says {says[:40]!r}, it {found}"
    assert needs == ("no" if found == "keeps" else "yes"), decoder
