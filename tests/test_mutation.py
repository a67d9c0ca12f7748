"""The mutation campaign's tools (mutation/, docs/mutation.md): the committed survivors
file is complete, shards split deterministically and merge into one run's report (on a
small fixed sample of the Python campaign), incremental runs see only changed lines.
The campaign itself is never run here: a handful of mutants at most."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# mutation/ is a maintainers' tool beside the rooms, not part of the installed package:
# imported from the checkout (the tests otherwise keep the checkout off sys.path).
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from mutation import judge, limits, report, scope, survivors  # noqa: E402

COMMITTED_REPORT = ROOT / "mutation" / "report.json"
COMMITTED_SURVIVORS = ROOT / "mutation" / "survivors.yaml"
needs_cosmic_ray = pytest.mark.skipif(
    importlib.util.find_spec("cosmic_ray") is None,
    reason="cosmic-ray is not installed (pip install -r mutation/requirements.txt)",
)


def test_every_survivor_of_the_committed_report_has_an_entry() -> None:
    committed = report.load(COMMITTED_REPORT)
    assert survivors.problems(committed, survivors.load(COMMITTED_SURVIVORS)) == []


def test_a_survivor_without_an_entry_is_named() -> None:
    committed = copy.deepcopy(report.load(COMMITTED_REPORT))
    planted = dict(committed["mutants"][0], key="python:reference/battle.py:1:0:planted:0")
    committed["mutants"].append(dict(planted, stage=report.SURVIVED))
    found = survivors.problems(committed, survivors.load(COMMITTED_SURVIVORS))
    assert found == [
        "python:reference/battle.py:1:0:planted:0: a survivor with no entry in the survivors file"
    ]


def test_an_entry_needs_its_argument_or_vector() -> None:
    assert survivors.entry_problem({"verdict": "equivalent", "what": "x"}) == (
        "a equivalent entry needs `argument`"
    )
    assert (
        survivors.entry_problem(
            {"verdict": "needs-vector", "what": "x", "vector": {"algorithm": "battle.ticket"}}
        )
        == "`vector` needs algorithm, input and why"
    )
    assert survivors.entry_problem({"verdict": "guess", "what": "x"}) is not None


def test_every_landed_vector_is_in_the_vectors() -> None:
    entries = survivors.load(COMMITTED_SURVIVORS)
    assert survivors.landed_problems(entries, ROOT / "vectors") == []
    # A planted entry, not a committed one: once a campaign judges a landed vector's mutant
    # again, it is killed and its entry goes, so the committed file may hold none.
    algorithm = "stake.crash"
    held = json.loads((ROOT / "vectors" / "stake" / "crash.json").read_text(encoding="utf-8"))
    landed = str(held["vectors"][0]["id"])
    planted: dict[str, Any] = {
        "what": "a planted entry",
        "verdict": "needs-vector",
        "vector": {
            "algorithm": algorithm,
            "input": {"salt": "s"},
            "why": "planted",
            "landed": [landed],
        },
    }
    key = "python:reference/stake.py:1:0:core/Planted:0"
    assert survivors.entry_problem(planted) is None
    assert survivors.landed_problems({key: planted}, ROOT / "vectors") == []
    planted["vector"]["landed"] = [landed, f"{algorithm}/no-such-case"]
    assert survivors.landed_problems({key: planted}, ROOT / "vectors") == [
        f"{key}: landed vector {algorithm}/no-such-case is not among {algorithm}'s vectors "
        f"in {ROOT / 'vectors'}"
    ]
    planted["vector"]["landed"] = f"{algorithm}/no-such-case"
    assert survivors.entry_problem(planted) == "`vector.landed` must be a list of vector ids"


def test_the_committed_report_has_figures_for_both_ports() -> None:
    figures = report.load(COMMITTED_REPORT)["figures"]
    assert set(figures) == {"node", "python"}
    assert figures == report.family_figures(report.load(COMMITTED_REPORT)["mutants"])


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_split_every_mutant_exactly_once(count: int) -> None:
    shards = [scope.Shard(index, count) for index in range(1, count + 1)]
    for position in range(50):
        assert sum(shard.takes(position) for shard in shards) == 1
        # the judge, run by Stryker with the mutant's number, splits the same way
        assert [judge.in_shard(str(position), (s.index, s.count)) for s in shards] == [
            s.takes(position) for s in shards
        ]


def mutant(key: str, stage: str = "fixed") -> dict[str, Any]:
    return report.mutant_record(
        key=key,
        port="python",
        family="battle",
        file="reference/battle.py",
        lines=(1, 1),
        mutator="m",
        replacement="r",
        stage=stage,
        seconds=1.0,
    )


def part(shard: str | None, *keys: str) -> report.Report:
    meta = {
        "commit": "c",
        "source": "s",
        "base": None,
        "fuzz_seed": 1,
        "fuzz_count": 1,
        "sample": None,
        "files": ["reference/battle.py"],
        "shard": shard,
        "wall_seconds": 1.0,
    }
    return report.build([mutant(key) for key in keys], meta)


def test_merge_refuses_a_missing_shard_and_an_overlap() -> None:
    with pytest.raises(report.ReportError, match="shard 2/3 is missing"):
        report.merge([part("1/3", "a"), part("3/3", "c")])
    with pytest.raises(report.ReportError, match="judged twice: a"):
        report.merge([part("1/2", "a"), part("2/2", "a")])
    partial = report.merge([part("1/3", "a")], allow_partial=True)
    assert partial["partial"] == ["reference/battle.py: shards 1/3 only"]
    other = part("2/2", "b")
    other["source"] = "t"
    with pytest.raises(report.ReportError, match="another source"):
        report.merge([part("1/2", "a"), other])


def test_changed_lines_come_from_git(tmp_path: Path) -> None:
    def git(*words: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *words],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    (tmp_path / "f.py").write_text("a\nb\nc\nd\n")
    git("add", "f.py")
    git("commit", "-q", "-m", "one")
    (tmp_path / "f.py").write_text("a\nB\nc\nd\ne\n")
    assert scope.changed_lines(tmp_path, "HEAD", "f.py") == {2, 5}
    assert scope.touches({2, 5}, 1, 2) and not scope.touches({2, 5}, 3, 4)
    assert scope.line_ranges({2, 3, 5}) == [(2, 3), (5, 5)]
    with pytest.raises(scope.ScopeError, match="--since nowhere"):
        scope.changed_lines(tmp_path, "nowhere", "f.py")


def campaign_words(tmp_path: Path, name: str, *extra: str) -> list[str]:
    """A fixed sample of the Python campaign: the first 3 mutants of reference/battle.py,
    fixed and accumulated stages (no fuzz: the sample is about splitting, not judging)."""
    words = ["run", "--port", "python", "--file", "reference/battle.py", "--sample", "3"]
    words += ["--fuzz-count", "0", "--work", str(tmp_path / name)]
    return [sys.executable, "-m", "mutation", *words, "--json", str(tmp_path / f"{name}.json")]


def campaign(tmp_path: Path, name: str, *extra: str) -> report.Report:
    command = [*campaign_words(tmp_path, name), *extra]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return report.load(tmp_path / f"{name}.json")


@needs_cosmic_ray
def test_merged_shards_give_the_report_of_one_run(tmp_path: Path) -> None:
    whole = campaign(tmp_path, "whole")
    first = campaign(tmp_path, "shard1", "--shard", "1/2")
    # shard 2/2 stopped before judging anything (a CI job's time limit), then resumed
    stopped = campaign(tmp_path, "shard2", "--shard", "2/2", "--stop-after", "0")
    assert stopped["mutants"] == [] and stopped["partial"] == [
        "reference/battle.py (shard 2/2): stopped by --stop-after with 0 of 1 mutants judged "
        "(run again with --resume)"
    ]
    other = subprocess.run(
        [*campaign_words(tmp_path, "shard2"), "--shard", "1/2", "--resume"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert other.returncode == 2 and other.stderr.count("\n") == 1
    assert "it was started with shard '2/2', not '1/2'" in other.stderr
    second = campaign(tmp_path, "shard2", "--shard", "2/2", "--resume")
    assert "partial" not in second
    shards = [first, second]
    assert [len(shard["mutants"]) for shard in shards] == [2, 1]
    assert report.comparable(report.merge(shards)) == report.comparable(whole)
    assert len(whole["mutants"]) == 3
    assert all(mutant["stage"] in report.KILLING_STAGES for mutant in whole["mutants"])


@pytest.mark.parametrize("seconds", ["-1", "nan", "inf", "soon"])
def test_stop_after_refuses_what_is_not_seconds(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from mutation import cli

    with pytest.raises(SystemExit) as stopped:
        cli.parser().parse_args(["run", "--port", "python", "--json", "x", "--stop-after", seconds])
    assert stopped.value.code == 2
    assert "give seconds, 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--resume"], ["--stop-after", "60"]])
def test_the_node_campaign_refuses_resume_and_stop_after(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mutation import cli

    words = ["run", "--port", "node", "--json", str(tmp_path / "x.json"), *option]
    assert cli.main(words) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "the Python campaign's only" in error
    assert not (tmp_path / "x.json").exists()


def test_a_stopped_tool_is_stopped_with_its_whole_process_group(tmp_path: Path) -> None:
    from mutation import python_port

    pids = tmp_path / "pids"
    # a tool that starts a child and waits on it: both must be gone once stopped
    code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "child.wait()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    while not pids.exists() or not pids.read_text():
        assert process.poll() is None
        time.sleep(0.01)
    assert python_port.wait_until(process, deadline=0.0) is False
    assert process.returncode is not None
    child = int(pids.read_text())
    for _ in range(6000):  # a budget a loaded machine meets: SIGTERM ends it at once
        if ended(child):
            break
        time.sleep(0.01)
    assert ended(child)


def ended(pid: int) -> bool:
    """Gone, or a zombie (this process may be a subreaper, as fairvec's runner makes it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_only_annotations_that_are_never_evaluated_are_ignored() -> None:
    from mutation import python_port

    body = "def f(x: int | None) -> list[int]:\n    return [x or 1]\n"
    spans = python_port.annotation_spans("from __future__ import annotations\n" + body)
    assert sorted(spans) == [((2, 9), (2, 19)), ((2, 24), (2, 33))]
    assert python_port.inside(spans, (2, 13), (2, 14))  # the | of int | None
    assert not python_port.inside(spans, (3, 14), (3, 16))  # the `or` of the body
    assert python_port.annotation_spans(body) == []  # evaluated at definition: mutable


def test_parts_judged_at_other_sources_merge_only_when_asked() -> None:
    earlier = part(None, "a")
    earlier["note"] = "the first campaign"
    later = part(None)  # a later campaign on another file, after the vectors moved on
    later.update(commit="d", source="t", files=["reference/casino.py"])
    later = report.build([dict(mutant("b"), file="reference/casino.py")], later)
    with pytest.raises(report.ReportError, match="another source"):
        report.merge([earlier, later])
    merged = report.merge([earlier, later], mixed_sources=True)
    assert merged["source"] is None
    assert merged["judged_at"] == [
        {"source": "s", "commits": ["c"], "files": ["reference/battle.py"]},
        {"source": "t", "commits": ["d"], "files": ["reference/casino.py"]},
    ]
    assert merged["note"] == "the first campaign"
    assert [m["key"] for m in merged["mutants"]] == ["a", "b"]
    # merged again with a further part: the files judged at each digest stay apart
    again = report.merge([merged, part("1/1", "c")], mixed_sources=True)
    assert [entry["files"] for entry in again["judged_at"]] == [
        ["reference/battle.py"],
        ["reference/casino.py"],
    ]
    assert "- source `t` (commit `d`): reference/casino.py" in report.markdown(again)
    # one digest throughout: no list, the digest as before
    assert "judged_at" not in report.merge([part("1/2", "a"), part("2/2", "b")], True, True)


def test_a_file_judged_whole_again_replaces_its_earlier_verdicts() -> None:
    """merge --judged-again: an edit renumbered the file's keys, so its earlier verdicts
    (stale keys, a stopped split's partial entry) give way to a later whole run of it; other
    files' verdicts stay, and a part that is no whole run (chosen mutants, a missing shard)
    replaces nothing."""
    stale = report.merge([part("1/2", "old-1")], allow_partial=True)  # a stopped split
    other = report.build(
        [dict(mutant("casino-1"), file="reference/casino.py")],
        dict(part(None), files=["reference/casino.py"], source="t"),
    )
    earlier = report.merge([stale, other], allow_partial=True, mixed_sources=True)
    assert earlier["partial"] == ["reference/battle.py: shards 1/2 only"]
    again = [dict(part(f"{k}/2", f"new-{k}"), source="u") for k in (1, 2)]
    merged = report.merge([earlier, *again], mixed_sources=True, judged_again=True)
    assert [m["key"] for m in merged["mutants"]] == ["casino-1", "new-1", "new-2"]
    assert "partial" not in merged
    assert [(e["source"], e["files"]) for e in merged["judged_at"]] == [
        ("u", ["reference/battle.py"]),
        ("t", ["reference/casino.py"]),
    ]
    # half a split, or chosen mutants, is no whole run: both verdicts stay, as without it
    chosen = dict(part(None, "new-1"), source="u", chosen_mutants=["new-1"])
    for later in ([again[0]], [chosen]):
        kept = report.merge([earlier, *later], True, True, judged_again=True)
        assert "old-1" in [m["key"] for m in kept["mutants"]]
    without = report.merge([earlier, *again], mixed_sources=True)
    assert "old-1" in [m["key"] for m in without["mutants"]]


IGNORER = ROOT / "mutation" / "node" / "ignore-messages.mjs"
IGNORER_PROBE = """
import { strykerPlugins } from %s;
const ignorer = strykerPlugins[0].value;
const text = (callee, position) => {
  const node = { type: 'StringLiteral' };
  const args = [{ type: 'StringLiteral' }, { type: 'StringLiteral' }];
  args[position] = node;
  const parent = { node: { callee, arguments: args },
    isNewExpression: () => callee.type === 'Identifier', isCallExpression: () => true };
  return ignorer.shouldIgnore({ node, parentPath: parent }) ?? null;
};
const member = (name) => ({ type: 'MemberExpression', property: { type: 'Identifier', name } });
console.log(JSON.stringify([
  text({ type: 'Identifier', name: 'InvalidInput' }, 1) !== null,
  text(member('toString'), 0), text(member('hasOwnProperty'), 0),
]));
"""


@pytest.mark.skipif(
    not (ROOT / "mutation" / "node" / "node_modules").is_dir(),
    reason="Stryker is not installed (npm ci in mutation/node)",
)
def test_the_message_ignorer_keeps_arguments_of_calls_named_like_object_methods() -> None:
    # bytes.toString('hex') in adapters/node/families/stake.js: the ignorer read
    # Object.prototype.toString as a list of message positions and Stryker crashed
    probe = IGNORER_PROBE % json.dumps(IGNORER.as_uri())
    finished = subprocess.run(
        ["node", "--input-type=module", "-e", probe], capture_output=True, text=True
    )
    assert finished.returncode == 0, finished.stderr[-500:]
    assert json.loads(finished.stdout) == [True, None, None]


def test_a_node_mutant_never_run_is_reported_by_one_shard_only(tmp_path: Path) -> None:
    # an ignored mutant (an error message) never reaches the judge, so no verdict says
    # "not in this shard": each shard must still take it by its number, once
    from mutation import node_port

    place = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 9}}
    stryker = {
        "files": {
            "families/battle.js": {
                "mutants": [
                    {
                        "id": "0",
                        "mutatorName": "StringLiteral",
                        "replacement": '""',
                        "location": place,
                        "status": "Ignored",
                    },
                    {
                        "id": "1",
                        "mutatorName": "BooleanLiteral",
                        "replacement": "false",
                        "location": place,
                        "status": "Killed",
                    },
                ]
            }
        }
    }
    (tmp_path / "stryker-report.json").write_text(json.dumps(stryker))
    verdicts = [
        {"mutant": "1", "stage": "fixed", "seconds": 1.0},
    ]
    (tmp_path / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    shards = [
        node_port.collect(tmp_path, "adapters/node/families/battle.js", "battle", scope.Shard(k, 2))
        for k in (1, 2)
    ]
    assert [[mutant["stage"] for mutant in shard] for shard in shards] == [["ignored"], ["fixed"]]


REACH_MODULE = """
from __future__ import annotations
TABLE = (1, 2)
CACHE: list[int] = []
def helper() -> int:
    return TABLE[0]
def unused() -> int:
    return 3
@algorithm("f.a")
def a() -> int:
    return helper()
@algorithm("f.b")
def b() -> int:
    CACHE.append(1)
    return 2
@algorithm("f.c")
def c() -> int:
    return len(CACHE)
"""


def test_a_statement_reaches_the_algorithms_that_can_run_it() -> None:
    from mutation import reach

    statements = reach.statement_reach(REACH_MODULE)
    assert statements is not None
    by_line = {first: names for first, _, names in statements}
    assert by_line[3] == ["f.a"]  # TABLE, through helper()
    assert by_line[5] == ["f.a"]
    assert by_line[7] == []  # called by no algorithm
    # b writes into CACHE, which c reads: a mutant of b can change c's answers
    assert by_line[9] == ["f.a"] and by_line[12] == ["f.b", "f.c"]
    assert by_line[4] == ["f.b", "f.c"]
    assert reach.statement_reach("def f():\n    global X\n    X = 1\n") is None


def scope_file(tmp_path: Path, mutated_text: str) -> str:
    from mutation import reach

    original, mutated = tmp_path / "original.py", tmp_path / "mutated.py"
    original.write_text(REACH_MODULE, encoding="utf-8")
    mutated.write_text(mutated_text, encoding="utf-8")
    statements = reach.statement_reach(REACH_MODULE)
    document = {"original": str(original), "mutated": str(mutated)}
    document.update(statements=statements, accumulated=["f.c"])
    (tmp_path / "scope.json").write_text(json.dumps(document), encoding="utf-8")
    return str(tmp_path / "scope.json")


def test_the_judge_runs_only_the_algorithms_a_mutant_reaches(tmp_path: Path) -> None:
    arguments = judge.parser().parse_args(["--algorithm", "f.*", "--", "port"])
    table = scope_file(tmp_path, REACH_MODULE.replace("TABLE = (1, 2)", "TABLE = (0, 2)"))
    reached = judge.scoped_algorithms(table)
    assert reached == (["f.a"], set())
    stages = judge.stage_commands(arguments, reached)
    # f.a has no accumulated vectors: that stage is left out, its verdict known
    assert [name for name, _ in stages] == ["fixed", "fuzz"]
    assert all(words.count("--algorithm") == 1 and "f.a" in words for _, words in stages)
    writer = scope_file(tmp_path, REACH_MODULE.replace("CACHE.append(1)", "CACHE.append(2)"))
    assert judge.scoped_algorithms(writer) == (["f.b", "f.c"], {"f.c"})
    # unchanged (the baseline), or a change no algorithm can run: the whole family
    assert judge.scoped_algorithms(scope_file(tmp_path, REACH_MODULE)) is None
    unused = scope_file(tmp_path, REACH_MODULE.replace("return 3", "return 4"))
    assert judge.scoped_algorithms(unused) is None
    assert [name for name, _ in judge.stage_commands(arguments, None)] == [
        "fixed",
        "accumulated",
        "fuzz",
    ]


def test_a_rejudged_mutant_keeps_its_later_verdict() -> None:
    committed = part(None, "a", "b")
    committed["mutants"][0]["stage"] = report.SURVIVED
    again = part(None)
    again.update(source="t", chosen_mutants=["a"])  # run --mutant a, after its vector landed
    again = report.build([mutant("a", "fixed")], again)
    with pytest.raises(report.ReportError, match="judged twice"):
        report.merge([committed, again], mixed_sources=True)
    merged = report.merge([committed, again], rejudged=True, mixed_sources=True)
    assert [(m["key"], m["stage"]) for m in merged["mutants"]] == [("a", "fixed"), ("b", "fixed")]
    assert merged["figures"]["python"]["battle"][report.SURVIVED] == 0
    assert merged["rejudged"] == ["a"]
    assert "1 mutants were judged again" in report.markdown(merged)
    # the keys stay through later merges, --rejudged or not, one list however often
    other = report.build(
        [dict(mutant("casino-1"), file="reference/casino.py")],
        dict(part(None), files=["reference/casino.py"], source="t"),
    )
    extended = report.merge([merged, other], mixed_sources=True)
    assert extended["rejudged"] == ["a"]
    assert report.merge([extended, other], rejudged=True, mixed_sources=True)["rejudged"] == [
        "a", "casino-1"
    ]  # fmt: skip
    # until their file is judged whole again: its new verdicts replace the earlier ones
    whole = dict(part(None, "a2", "b2"), source="u")
    replaced = report.merge([extended, whole], mixed_sources=True, judged_again=True)
    assert "rejudged" not in replaced


def test_a_report_whose_rejudged_is_no_list_of_keys_is_refused(tmp_path: Path) -> None:
    written = tmp_path / "report.json"
    for wrong in (10, ["a", 3]):  # a count (what merge once wrote), a list with a number
        written.write_text(json.dumps(dict(part(None, "a"), rejudged=wrong)), encoding="utf-8")
        with pytest.raises(report.ReportError, match=r"'rejudged' is .*not a list of mutant keys"):
            report.load(written)


def test_a_mutant_key_names_its_port_file_and_line() -> None:
    key = "python:reference/stake.py:64:12:core/NumberReplacer:64"
    assert scope.key_place(key) == ("python", "reference/stake.py", 64)
    with pytest.raises(scope.ScopeError, match="not a mutant key"):
        scope.key_place("reference/stake.py:64")


def test_stryker_is_given_every_range_in_one_mutate_list(tmp_path: Path) -> None:
    from mutation import node_port

    keys = [
        "node:adapters/node/families/nardy.js:13:19:Regex:a38f8248",
        "node:adapters/node/families/nardy.js:87:17:ConditionalExpression:bebb003e",
        "node:adapters/node/families/stake.js:130:38:ArithmeticOperator:ab5f8902",
    ]
    settings = scope.Settings(
        ROOT, tmp_path, ROOT / "vectors", 1, 1, None, None, None, frozenset(keys)
    )
    words = node_port.stryker_words(settings, "adapters/node/families/nardy.js")
    # Stryker's CLI keeps only the last --mutate given: one list holds every range
    assert words.count("--mutate") == 1
    assert words[words.index("--mutate") + 1] == "families/nardy.js:13-13,families/nardy.js:87-87"


# -- the per-vector limit, scaled to the unmutated port's baseline --------------------------


def _baseline(tmp_path: Path, seconds: dict[str, float]) -> tuple[Path, Path]:
    """A vector tree with one slow-tagged vector (f/a.json: a/slow) and a run report."""
    vectors = tmp_path / "vectors"
    (vectors / "f").mkdir(parents=True, exist_ok=True)
    tagged = [{"id": "f.a/slow", "tags": ["slow"]}, {"id": "f.a/quick", "tags": []}]
    (vectors / "f" / "a.json").write_text(json.dumps({"vectors": tagged}), encoding="utf-8")
    results = [{"id": vector_id, "seconds": value} for vector_id, value in seconds.items()]
    report_file = tmp_path / "baseline.json"
    report_file.write_text(json.dumps({"results": results}), encoding="utf-8")
    return report_file, vectors


def test_the_limit_is_the_baseline_s_slowest_vector_times_the_headroom(tmp_path: Path) -> None:
    # a slow vector's time counts divided by the runner's factor (it multiplies it back)
    report_file, vectors = _baseline(tmp_path, {"f.a/slow": 80.0, "f.a/quick": 0.5})
    assert limits.vector_timeout(report_file, vectors) == 4 * 8.0
    report_file, vectors = _baseline(tmp_path, {"f.a/slow": 10.0, "f.a/quick": 3.1})
    assert limits.vector_timeout(report_file, vectors) == 13.0  # ceil(4 x 3.1)
    # a quick port keeps the judge's 5 s: a loop is still caught fast
    report_file, vectors = _baseline(tmp_path, {"f.a/quick": 0.01})
    assert limits.vector_timeout(report_file, vectors) == judge.VECTOR_TIMEOUT


def test_a_baseline_report_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    report_file, vectors = _baseline(tmp_path, {})
    report_file.write_text('{"results": [{"id": "f.a/quick"}]}', encoding="utf-8")
    with pytest.raises(limits.LimitError, match=r"baseline\.json: not a fairvec run report"):
        limits.vector_timeout(report_file, vectors)


def test_the_judge_gives_every_stage_the_limit_and_the_baseline_its_report() -> None:
    words = ["--algorithm", "f.*", "--vector-timeout", "32", "--baseline-report", "b.json"]
    stages = dict(judge.stage_commands(judge.parser().parse_args([*words, "--", "port"])))
    for stage in ("fixed", "accumulated", "fuzz"):
        assert stages[stage][stages[stage].index("--timeout") + 1] == "32"
    assert stages["fixed"][stages["fixed"].index("--json") + 1] == "b.json"
    assert "--json" not in stages["accumulated"] + stages["fuzz"]


def test_a_stage_stopped_while_it_waited_is_asked_again_with_more_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # each command is the answers its runs give: (exit status, whether it mostly waited)
    answers: dict[str, list[tuple[int, bool]]] = {}
    monkeypatch.setattr(judge, "status_of", lambda command: answers[command[0]].pop(0))

    def judged(first: list[tuple[int, bool]], again: list[tuple[int, bool]]) -> object:
        answers.update(fixed=first, patient=again, fuzz=[(0, False)])
        return judge.judge([("fixed", ["fixed"]), ("fuzz", ["fuzz"])], {"fixed": ["patient"]})

    # starved: stopped at the limit while waiting for a core, in time with ten times it
    assert judged([(2, True)], [(0, False)]) == ("survived", 0, ["fixed"])
    # a crash or hang while waiting, and again with more time: killed
    assert judged([(2, True)], [(2, False)]) == ("fixed", 2, ["fixed"])
    # stopped while computing all along (a loop): killed at once, not asked again
    assert judged([(2, False)], [(0, False)]) == ("fixed", 2, [])
    # a wrong answer kills at once, whatever the load
    assert judged([(1, True)], [(0, False)]) == ("fixed", 1, [])
    # a baseline (no patient commands) is asked once
    answers.update(fixed=[(2, True)])
    assert judge.judge([("fixed", ["fixed"])]) == ("fixed", 2, [])


def test_a_stage_that_computed_is_told_from_one_that_waited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a sleep uses next to no CPU, however loaded the machine
    sleeping = [sys.executable, "-c", "import sys, time; time.sleep(1); sys.exit(2)"]
    assert judge.status_of(sleeping) == (2, True)
    # a loop uses CPU all the time it runs (the children's CPU counted as 10 s here: a
    # real loop's share of a core is at the machine's mercy)
    counted = iter([0.0, 10.0])
    monkeypatch.setattr(judge, "_children_cpu", lambda: next(counted))
    assert judge.status_of([sys.executable, "-c", "pass"]) == (0, False)


def test_the_judge_asks_a_mutant_again_with_ten_times_the_limit_but_not_a_baseline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[list[str]] = []

    def stopped_then_answered(command: list[str]) -> tuple[int, bool]:
        asked.append(command)
        return (2, True) if len(asked) == 1 else (0, False)

    monkeypatch.setattr(judge, "status_of", stopped_then_answered)
    monkeypatch.setenv(judge.STRYKER_MUTANT, "7")
    words = ["--algorithm", "f.*", "--vector-timeout", "4", "--fuzz-count", "0", "--stryker"]
    assert judge.main([*words, "--no-accumulated", "--", "port"]) == 0
    assert [command[command.index("--timeout") + 1] for command in asked] == ["4", "40"]
    verdict = json.loads(capsys.readouterr().out.split(judge.VERDICT_PREFIX)[1])
    assert verdict["stage"] == "survived" and verdict["asked_again"] == ["fixed"]
    asked.clear()
    assert judge.main([*words, "--baseline-report", "b.json", "--", "port"]) == 1
    assert len(asked) == 1


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "five"])
def test_the_judge_refuses_a_limit_that_is_not_seconds(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        judge.parser().parse_args(["--algorithm", "f.*", "--vector-timeout", seconds, "--", "p"])
    assert stopped.value.code == 2
    assert "give seconds above 0" in capsys.readouterr().err
