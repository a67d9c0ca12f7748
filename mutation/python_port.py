"""The Python reference's campaign (it is also the bundled Python port): cosmic-ray
(mutation/python/cosmic-ray.toml), one session per mutated file, each mutant applied in
a sandbox and judged by mutation/judge.py.

The sandbox is a ``fairvec`` package whose ``reference`` is a copy (the file cosmic-ray
rewrites) and whose every other entry links to the installed package. Only the adapter
process imports it (PYTHONPATH); fairvec's runner and the fuzz oracle are the installed,
unmutated fairvec, so a mutant is never compared with itself.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

from mutation import families, limits, reach, report, scope
from mutation.judge import VERDICT_PREFIX
from mutation.scope import Settings

PORT = "python"
HERE = Path(__file__).resolve().parent
CONFIG = HERE / "python" / "cosmic-ray.toml"
JUDGE = HERE / "judge.py"
SESSION = "session.sqlite"
SCOPE = "scope.json"  # the judge's --scope: which algorithms each line can reach
RUN_FILE = "run.json"  # what a session was started for: --resume goes on only with the same
# A stopped cosmic-ray (--stop-after, Ctrl-C) gets this long after SIGTERM to its process
# group before SIGKILL: the judge's fairvec run stops the adapters it started (each leads a
# session of its own, out of the group's reach) when it gets SIGTERM.
STOP_GRACE = 30.0
# The baseline run's own per-vector limit: generous, it only proves the port passes
BASELINE_TIMEOUT = 600
# The output of a mutant the configuration decides out ([fairvec-mutation] in the config).
IGNORED_ANNOTATION = "ignored: inside a type annotation, never evaluated"
OUTSIDE_SCOPE = "outside this run's scope"
Span = tuple[tuple[int, int], tuple[int, int]]


class PythonCampaignError(Exception):
    """cosmic-ray missing or failed: one line saying what to do."""


def default_files(repo: Path) -> list[str]:
    return sorted(str(path.relative_to(repo)) for path in (repo / "reference").glob("*.py"))


def installed_package() -> Path:
    spec = importlib.util.find_spec("fairvec")
    if spec is None or not spec.submodule_search_locations:
        raise PythonCampaignError("fairvec is not installed: pip install -e . first")
    return Path(next(iter(spec.submodule_search_locations)))


def build_sandbox(sandbox: Path, repo: Path) -> None:
    """sandbox/fairvec: links to the installed package's entries, and a copy of the
    checkout's reference/ (the mutated one; no bytecode cache beside it)."""
    package = sandbox / "fairvec"
    package.mkdir(parents=True)
    for entry in installed_package().iterdir():
        if entry.name not in ("reference", "__pycache__"):
            (package / entry.name).symlink_to(entry.resolve())
    shutil.copytree(
        repo / "reference", package / "reference", ignore=shutil.ignore_patterns("__pycache__")
    )


def adapter_words(sandbox: Path) -> list[str]:
    # no bytecode: a mutant of the same size written within the same second would
    # otherwise be read from the unmutated file's cache
    return [
        "env",
        f"PYTHONPATH={sandbox}",
        "PYTHONDONTWRITEBYTECODE=1",
        sys.executable,
        "-P",
        "-m",
        "fairvec.adapters.python",
    ]


def judge_words(
    settings: Settings,
    family: str,
    sandbox: Path,
    scope_file: Path | None = None,
    vector_timeout: float | None = None,
) -> list[str]:
    words = [sys.executable, str(JUDGE)]
    if vector_timeout is not None:
        words += ["--vector-timeout", f"{vector_timeout:g}"]
    for glob in families.algorithm_globs(family):
        words += ["--algorithm", glob]
    if not families.has_accumulated(settings.vectors, family):
        words.append("--no-accumulated")
    if scope_file is not None:
        words += ["--scope", str(scope_file)]
    words += ["--fuzz-seed", str(settings.fuzz_seed), "--fuzz-count", str(settings.fuzz_count)]
    return [*words, "--", *adapter_words(sandbox)]


def session_config(module: Path, test_command: str) -> str:
    """The committed configuration with this session's module and test command."""
    text = CONFIG.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^module-path = .*$", f"module-path = {json.dumps(str(module))}", text)
    return re.sub(
        r"(?m)^test-command = .*$", lambda _: f"test-command = {json.dumps(test_command)}", text
    )


def cosmic_ray(folder: Path, *words: str, deadline: float | None = None) -> bool:
    """One of cosmic-ray's tools, run in the session folder; False when ``deadline`` (a
    time.monotonic()) came first and stopped it."""
    tool = Path(sys.executable).parent / words[0]
    if not tool.exists():
        raise PythonCampaignError(
            f"{tool} is missing: pip install -r mutation/requirements.txt (docs/mutation.md)"
        )
    with open(folder / "cosmic-ray.log", "a", encoding="utf-8") as log:
        # a session of its own: stopping it stops the judge and the fairvec run under it
        process = subprocess.Popen(
            [str(tool), *words[1:]],
            cwd=folder,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if not wait_until(process, deadline):
            return False
    if process.returncode != 0:
        raise PythonCampaignError(f"{words[0]} failed: see {folder / 'cosmic-ray.log'}")
    return True


def wait_until(process: subprocess.Popen[bytes], deadline: float | None) -> bool:
    """True when the process ends by itself before ``deadline``; else its process group is
    stopped (also when this process is interrupted or terminated: then re-raised)."""
    left = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        process.wait(timeout=left)
        return True
    except subprocess.TimeoutExpired:
        stop_group(process)
        return False
    except BaseException:
        stop_group(process)
        raise


def stop_group(process: subprocess.Popen[bytes]) -> None:
    for stop, grace in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, stop)
        except ProcessLookupError:
            return  # every process of the group has ended
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def write_scope(settings: Settings, file: str, family: str, folder: Path) -> Path | None:
    """The judge's scope file for one module (mutation/reach.py): a pristine copy of the
    module to compare the mutated one with, where the mutant is, each top-level
    statement's algorithms, and which of the family's algorithms have accumulated
    vectors. None (the whole family for every mutant) where the module defeats the
    analysis or serves every family."""
    source = (settings.repo / file).read_text(encoding="utf-8")
    statements = reach.statement_reach(source)
    if statements is None or family == families.SHARED:
        return None
    original = folder / f"original-{Path(file).name}"
    original.write_text(source, encoding="utf-8")
    scope_file = folder / SCOPE
    document = {
        "original": str(original.resolve()),
        "mutated": str((folder / "sandbox" / "fairvec" / "reference" / Path(file).name).resolve()),
        "statements": [list(statement) for statement in statements],
        "accumulated": families.accumulated_algorithms(settings.vectors, family),
    }
    scope_file.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return scope_file


def check_baseline(settings: Settings, family: str, folder: Path, sandbox: Path) -> float:
    """The unmutated sandbox passes the fixed stage (else every mutant would be 'killed'):
    the per-vector limit its mutants' judges get, scaled to the time it took."""
    baseline = folder / "baseline.json"
    words = judge_words(settings, family, sandbox)
    extra = ["--fuzz-count", "0", "--no-accumulated", "--baseline-report", str(baseline)]
    # the limit of the baseline itself: a whole chain walk may take minutes on a busy machine
    extra += ["--vector-timeout", str(BASELINE_TIMEOUT)]
    words[words.index("--") : words.index("--")] = extra
    if subprocess.run(words, cwd=folder, capture_output=True).returncode != 0:
        raise PythonCampaignError(f"the unmutated sandbox in {folder} fails its fixed vectors")
    try:
        return limits.vector_timeout(baseline, settings.vectors)
    except limits.LimitError as error:
        raise PythonCampaignError(str(error)) from None


def ignores_annotations() -> bool:
    settings = tomllib.loads(CONFIG.read_text(encoding="utf-8")).get("fairvec-mutation", {})
    return bool(settings.get("ignore-annotations", False))


def annotation_spans(source: str) -> list[Span]:
    """Where the type annotations stand, as (line, column) pairs, in a module whose
    annotations are never evaluated (``from __future__ import annotations``); none in
    another."""
    tree = ast.parse(source)
    postponed = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )
    if not postponed:
        return []
    annotations: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            annotations.append(node.returns)
    return [
        ((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))
        for node in annotations
    ]


def inside(spans: list[Span], start: tuple[int, int], end: tuple[int, int]) -> bool:
    return any(first <= start and end <= last for first, last in spans)


def skip_outside_scope(settings: Settings, folder: Path, file: str) -> None:
    """Mark SKIPPED (cosmic-ray's own way, as its filters do) the mutants of other shards,
    outside the changed lines or past the sample; then, among this run's, those the
    configuration decides out (kept as ignored in the report)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    changed = scope.changed_lines(settings.repo, settings.since, file) if settings.since else None
    source = (settings.repo / file).read_text(encoding="utf-8")
    spans = annotation_spans(source) if ignores_annotations() else []
    skipped: dict[str, list[str]] = {OUTSIDE_SCOPE: [], IGNORED_ANNOTATION: []}
    with use_db(str(folder / SESSION), WorkDB.Mode.open) as work_db:
        pending = {item.job_id for item in work_db.pending_work_items}
        for position, item in enumerate(ordered_items(work_db)):
            mutation = item.mutations[0]
            kept = (
                settings.chooses(mutant_key(file, mutation))
                and (settings.shard is None or settings.shard.takes(position))
                and scope.touches(changed, mutation.start_pos[0], mutation.end_pos[0])
                and (settings.sample is None or position < settings.sample)
            )
            if item.job_id not in pending:
                continue
            if not kept:
                skipped[OUTSIDE_SCOPE].append(item.job_id)
            elif inside(spans, tuple(mutation.start_pos), tuple(mutation.end_pos)):
                skipped[IGNORED_ANNOTATION].append(item.job_id)
        # one transaction an outcome: set_result commits (an fsync) a mutant, 33 ms each:
        # 8.5 s of a 3-mutant sample's 25 s (profiled), about 17 s a shard of stake.py
        for output, job_ids in skipped.items():
            result = WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=output)
            work_db.set_multiple_results(job_ids, result)


def ordered_items(work_db: Any) -> list[Any]:
    """cosmic-ray's work items in one fixed order (place, operator, occurrence): the
    numbering shards split."""
    items = list(work_db.work_items)
    return sorted(
        items,
        key=lambda item: (
            item.mutations[0].start_pos,
            item.mutations[0].operator_name,
            item.mutations[0].occurrence,
        ),
    )


def verdict_of(output: str | None) -> dict[str, object]:
    for line in reversed((output or "").splitlines()):
        if line.startswith(VERDICT_PREFIX):
            verdict: dict[str, object] = json.loads(line[len(VERDICT_PREFIX) :])
            return verdict
    return {"stage": "timeout" if output == "timeout" else "error", "seconds": 0.0}


def collect(folder: Path, file: str, family: str) -> list[report.Mutant]:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    records = []
    with use_db(str(folder / SESSION), WorkDB.Mode.open) as work_db:
        results = dict(work_db.results)
        for item in ordered_items(work_db):
            result = results.get(item.job_id)
            ignored = result is not None and result.output == IGNORED_ANNOTATION
            if result is None or (result.worker_outcome == WorkerOutcome.SKIPPED and not ignored):
                continue
            mutation = item.mutations[0]
            verdict = verdict_of(result.output)
            stage = str(verdict["stage"])
            if result.test_outcome == TestOutcome.SURVIVED:
                stage = report.SURVIVED
            if ignored:
                stage, verdict = report.IGNORED, {"seconds": 0.0}
            records.append(
                report.mutant_record(
                    key=mutant_key(file, mutation),
                    port=PORT,
                    family=family,
                    file=file,
                    lines=(mutation.start_pos[0], mutation.end_pos[0]),
                    mutator=mutation.operator_name,
                    replacement=_replacement(result.diff),
                    stage=stage,
                    seconds=float(str(verdict.get("seconds", 0.0))),
                )
            )
    return records


def mutant_key(file: str, mutation: Any) -> str:
    """The report's key of a cosmic-ray mutation: place, operator and occurrence."""
    line, column = mutation.start_pos
    return f"{PORT}:{file}:{line}:{column}:{mutation.operator_name}:{mutation.occurrence}"


def _replacement(diff: str | None) -> str:
    """The mutated line, from cosmic-ray's diff."""
    added = [
        line[1:]
        for line in (diff or "").splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return " ".join(" ".join(added).split())


class Campaign(NamedTuple):
    records: list[report.Mutant]
    partial: list[str]  # a line for each file not judged whole (--stop-after), as the report's


def campaign(settings: Settings, files: list[str]) -> Campaign:
    known = families.known_families(settings.vectors)
    done = Campaign([], [])
    for file in files:
        if settings.since and not scope.changed_lines(settings.repo, settings.since, file):
            continue  # incremental: nothing changed in this file
        family = families.family_of(file, known)
        folder = settings.work / f"python-{Path(file).stem}"
        wanted = session_settings(settings, file)
        if settings.resume and resumable(folder, wanted):
            shutil.rmtree(folder / "sandbox")  # a stopped session may have left a mutant in it
            build_sandbox(folder / "sandbox", settings.repo)
        else:
            # started even past --stop-after's deadline (one baseline run): --resume then
            # finds every file's session ready, and 0 judged is a partial part like any other
            start_session(settings, file, family, folder, wanted)
        if not judge_session(folder, settings.deadline):
            done.partial.append(stopped_note(folder, file, settings))
        done.records.extend(collect(folder, file, family))
    return done


def judge_session(folder: Path, deadline: float | None) -> bool:
    """cosmic-ray judges the session's pending mutants; False when the deadline stopped it
    (or had passed: then it is not started)."""
    if deadline is not None and time.monotonic() >= deadline:
        return False
    return cosmic_ray(folder, "cosmic-ray", "exec", "cosmic-ray.toml", SESSION, deadline=deadline)


def start_session(
    settings: Settings, file: str, family: str, folder: Path, wanted: dict[str, Any]
) -> None:
    """A new session in the folder: the sandbox, the baseline and its limit, cosmic-ray's
    mutants with those outside this run marked skipped; run.json last (what --resume
    checks), so a start cut short is started again."""
    shutil.rmtree(folder, ignore_errors=True)
    sandbox = folder / "sandbox"
    build_sandbox(sandbox, settings.repo)
    module = Path("sandbox") / "fairvec" / "reference" / Path(file).name
    scope_file = write_scope(settings, file, family, folder)
    limit = check_baseline(settings, family, folder, sandbox)
    command = shlex.join(judge_words(settings, family, sandbox, scope_file, limit))
    (folder / "cosmic-ray.toml").write_text(session_config(module, command), encoding="utf-8")
    cosmic_ray(folder, "cosmic-ray", "init", "cosmic-ray.toml", SESSION)
    cosmic_ray(folder, "cr-filter-operators", SESSION, "cosmic-ray.toml")
    skip_outside_scope(settings, folder, file)
    (folder / RUN_FILE).write_text(json.dumps(wanted, indent=1) + "\n", encoding="utf-8")


def session_settings(settings: Settings, file: str) -> dict[str, Any]:
    """What a session judges, and at which state of the code and vectors."""
    return {
        "file": file,
        "shard": str(settings.shard) if settings.shard else None,
        "since": settings.since,
        "sample": settings.sample,
        "mutants": sorted(settings.mutants) if settings.mutants is not None else None,
        "fuzz_seed": settings.fuzz_seed,
        "fuzz_count": settings.fuzz_count,
        "vectors": str(settings.vectors),
        "source": settings.source,
    }


def resumable(folder: Path, wanted: dict[str, Any]) -> bool:
    """--resume: whether the folder holds a session to go on with (False: none was fully
    started there); one started for other settings is refused, naming what differs."""
    if not (folder / SESSION).exists() or not (folder / RUN_FILE).exists():
        return False
    try:
        started = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PythonCampaignError(
            f"--resume: {folder / RUN_FILE} cannot be read ({error}): run without --resume "
            "to start the session again"
        ) from None
    started = started if isinstance(started, dict) else {}
    differs = [key for key in wanted if started.get(key) != wanted[key]]
    if not differs:
        return True
    key = differs[0]
    what = (
        "the code or vectors changed since it started (another source digest)"
        if key == "source"
        else f"it was started with {key} {started.get(key)!r}, not {wanted[key]!r}"
    )
    raise PythonCampaignError(
        f"--resume: {folder} holds another session: {what}; run without --resume to start "
        "again, or give another --work"
    )


def _of_shard(settings: Settings) -> str:
    return f" (shard {settings.shard})" if settings.shard else ""


def stopped_note(folder: Path, file: str, settings: Settings) -> str:
    """The report's partial line for a session --stop-after stopped."""
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(folder / SESSION), WorkDB.Mode.open) as work_db:
        pending = sum(1 for _ in work_db.pending_work_items)
        judged = sum(
            1 for _, result in work_db.results
            if result.worker_outcome.name != "SKIPPED"
        )  # fmt: skip
    return (
        f"{file}{_of_shard(settings)}: stopped by --stop-after with {judged} of "
        f"{judged + pending} mutants judged (run again with --resume)"
    )
