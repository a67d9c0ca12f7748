"""The campaign's report: every mutant with the stage that killed it, the figures per
port and family, merging shard reports, and the markdown summary."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

FORMAT = "fairvec-mutation-report/1"
# The judge's stages in order, then what is not a kill.
KILLING_STAGES = ("fixed", "accumulated", "fuzz", "timeout", "error")
SURVIVED = "survived"
# Decided out by the configuration (an error's message text): never judged.
IGNORED = "ignored"
STAGES = (*KILLING_STAGES, SURVIVED, IGNORED)

Mutant = dict[str, Any]
Report = dict[str, Any]


class ReportError(Exception):
    """Reports that cannot be merged, or a file that is not a report: one line."""


def mutant_record(
    *,
    key: str,
    port: str,
    family: str,
    file: str,
    lines: tuple[int, int],
    mutator: str,
    replacement: str,
    stage: str,
    seconds: float,
) -> Mutant:
    if stage not in STAGES:
        raise ReportError(f"{key}: unknown stage {stage!r}")
    return {
        "key": key,
        "port": port,
        "family": family,
        "file": file,
        "lines": list(lines),
        "mutator": mutator,
        "replacement": replacement,
        "stage": stage,
        "seconds": round(seconds, 3),
    }


def family_figures(mutants: Iterable[Mutant]) -> dict[str, dict[str, dict[str, int]]]:
    """Per port, per family: mutants judged, killed by the fixed vectors, killed only
    later (accumulated vectors, fuzz, a timeout), survivors, and those ignored by the
    configuration (not counted as mutants)."""
    figures: dict[str, dict[str, dict[str, int]]] = {}
    for mutant in mutants:
        family = figures.setdefault(mutant["port"], {}).setdefault(
            mutant["family"], {stage: 0 for stage in ("mutants", *STAGES)}
        )
        family[mutant["stage"]] += 1
        family["mutants"] += mutant["stage"] != IGNORED
    return {port: dict(sorted(families.items())) for port, families in sorted(figures.items())}


def build(mutants: Sequence[Mutant], meta: dict[str, Any]) -> Report:
    """A report from its mutants (sorted by key: one order however they were run) and
    what the run was (commit, base, shard, stage settings, seconds)."""
    ordered = sorted(mutants, key=lambda mutant: mutant["key"])
    keys = [mutant["key"] for mutant in ordered]
    if len(set(keys)) != len(keys):
        twice = sorted({key for key in keys if keys.count(key) > 1})
        raise ReportError(f"a mutant judged twice: {twice[0]} (shards overlap?)")
    return {
        "format": FORMAT,
        **meta,
        "figures": family_figures(ordered),
        "judged_seconds": round(sum(mutant["seconds"] for mutant in ordered), 3),
        "mutants": ordered,
    }


# What may differ between shards of one campaign (and between a merged report and one
# run): the shard itself, the clock, and the commit checked out (the code is compared by
# its digest, "source").
PER_RUN = ("commit", "shard", "wall_seconds", "judged_seconds", "note")


def comparable(report: Report) -> Report:
    """The report without what differs from run to run (times, the shard)."""
    kept = {key: value for key, value in report.items() if key not in PER_RUN}
    kept["mutants"] = [
        {key: value for key, value in mutant.items() if key != "seconds"}
        for mutant in report["mutants"]
    ]
    return kept


def merge(
    reports: Sequence[Report],
    allow_partial: bool = False,
    mixed_sources: bool = False,
    rejudged: bool = False,
    judged_again: bool = False,
) -> Report:
    """The report of the whole campaign from its parts: the shards of one run (each
    K/N once: the same mutants and figures as one run over every shard,
    tests/test_mutation.py checks it), and runs over other files or ports.

    ``mixed_sources``: parts judged at other states of the code or vectors (their
    ``source`` digests differ) are accepted, and the report says which files were judged
    at which digest (``judged_at``) instead of claiming one; every other setting must
    still agree. For a campaign extended file by file while the vectors move on, where
    judging the earlier files again is too dear.

    ``rejudged``: a mutant in more than one part takes the verdict of the last part
    naming it (``run --mutant`` judged it again after its vectors landed); the report
    lists their keys under ``rejudged``. Parts made with ``run --mutant`` hold only chosen
    mutants of their files, so they never count as a split of those files. The keys a
    part lists are kept by every later merge, with or without ``rejudged``, until a
    ``judged_again`` run of their file replaces their verdicts.

    ``judged_again``: a file that a later part judged whole (every shard of its split,
    not chosen mutants) loses what the earlier parts said of it: their mutants, their
    ``judged_at`` and ``partial`` entries. An edit renumbers the keys after it (cosmic-ray
    counts a mutant's occurrence over the whole module), so the earlier verdicts of an
    edited file cannot be matched to the new ones, only replaced."""
    if not reports:
        raise ReportError("merge: no report given")
    if judged_again:
        reports = _without_judged_again(reports)
    compared = [key for key in SHARED_SETTINGS if not (mixed_sources and key == "source")]
    common = [{key: report.get(key) for key in compared} for report in reports]
    for report, setting in zip(reports, common, strict=True):
        if setting != common[0]:
            differs = sorted(key for key in setting if setting[key] != common[0][key])
            raise ReportError(
                f"merge: shard {report.get('shard')} was run with another {differs[0]} "
                "(merge the parts of one campaign: same code, vectors and stage settings; "
                "--mixed-sources accepts parts judged at other code or vectors)"
            )
    runs: dict[str, list[Report]] = {}
    for report in reports:
        if report.get("chosen_mutants"):
            continue  # chosen mutants, not a split of the files
        runs.setdefault(json.dumps(report["files"]), []).append(report)
    partial = []
    for files, parts in runs.items():
        shards = sorted(str(part["shard"]) for part in parts if part.get("shard"))
        try:
            _check_shards_complete(shards)
        except ReportError:
            if not allow_partial:
                raise
            partial.append(f"{', '.join(json.loads(files))}: shards {', '.join(shards)} only")
    judged_at = _judged_at(reports)
    meta = {
        "commit": reports[0].get("commit"),
        **{key: reports[0].get(key) for key in SHARED_SETTINGS},
        "source": judged_at[0]["source"] if len(judged_at) == 1 else None,
    }
    if len(judged_at) > 1:
        meta["judged_at"] = judged_at
    if partial or any(report.get("partial") for report in reports):
        meta["partial"] = sorted({*partial, *(p for r in reports for p in r.get("partial", []))})
    meta["files"] = sorted({file for report in reports for file in report["files"]})
    meta["shard"] = None
    meta["wall_seconds"] = round(sum(report.get("wall_seconds", 0.0) for report in reports), 3)
    notes = [str(report["note"]) for report in reports if report.get("note")]
    if notes:
        meta["note"] = "\n\n".join(dict.fromkeys(notes))  # each part's own account, once
    mutants = [mutant for report in reports for mutant in report["mutants"]]
    again = {key for report in reports for key in report.get("rejudged", [])}
    if rejudged:
        latest = {mutant["key"]: mutant for mutant in mutants}  # the last part's verdict
        again |= _named_twice(mutants)
        mutants = list(latest.values())
    if again:
        meta["rejudged"] = sorted(again)
    return build(mutants, meta)


def _named_twice(mutants: Sequence[Mutant]) -> set[str]:
    """The keys of the mutants that more than one part judged."""
    seen: set[str] = set()
    twice: set[str] = set()
    for mutant in mutants:
        (twice if mutant["key"] in seen else seen).add(mutant["key"])
    return twice


def _without_judged_again(reports: Sequence[Report]) -> list[Report]:
    """Each part without the files a later part judged whole (see merge's judged_again);
    a part left with no file is left out."""
    kept: list[Report] = []
    for at, earlier in enumerate(reports):
        again = _judged_whole(reports[at + 1 :])
        if not again & set(earlier["files"]):
            kept.append(earlier)
            continue
        files = [file for file in earlier["files"] if file not in again]
        if not files:
            continue
        trimmed = dict(earlier, files=files)
        trimmed["mutants"] = [m for m in earlier["mutants"] if m["file"] not in again]
        if earlier.get("rejudged"):  # a key judged again is one of the part's own mutants
            left = {mutant["key"] for mutant in trimmed["mutants"]}
            trimmed["rejudged"] = [key for key in earlier["rejudged"] if key in left]
        if earlier.get("judged_at"):
            entries = [dict(e, files=[f for f in e["files"] if f not in again])
                       for e in earlier["judged_at"]]  # fmt: skip
            trimmed["judged_at"] = [entry for entry in entries if entry["files"]]
        if earlier.get("partial"):
            trimmed["partial"] = [
                note for note in earlier["partial"]
                if not any(note.startswith(file) for file in again)
            ]  # fmt: skip
        kept.append(trimmed)
    return kept


# What makes a part no whole run of its files: chosen mutants (run --mutant), changed lines
# only (--since), a sample, a stopped split, or a merged report of many parts.
NOT_WHOLE = ("chosen_mutants", "base", "sample", "partial", "judged_at")


def _judged_whole(reports: Sequence[Report]) -> set[str]:
    """The files some of ``reports`` judged whole: a run over every mutant of its files,
    or every shard K/N of one (run --mutant's parts judge chosen mutants only)."""
    runs: dict[tuple[str, ...], list[str]] = {}
    whole: set[str] = set()
    for one in reports:
        if any(one.get(key) for key in NOT_WHOLE):
            continue
        files = tuple(one["files"])
        if not one.get("shard"):
            whole.update(files)
        else:
            runs.setdefault(files, []).append(str(one["shard"]))
    for files, shards in runs.items():
        try:
            _check_shards_complete(sorted(shards))
        except ReportError:
            continue
        whole.update(files)
    return whole


def _judged_at(reports: Sequence[Report]) -> list[dict[str, Any]]:
    """Which files were judged at which source digest (and commits): a part merged
    before brings its own list."""
    groups: dict[str, dict[str, set[str]]] = {}
    for report in reports:
        entries = report.get("judged_at") or [
            {
                "source": report.get("source"),
                "commits": [report.get("commit")],
                "files": report["files"],
            }
        ]
        for entry in entries:
            group = groups.setdefault(str(entry["source"]), {"commits": set(), "files": set()})
            group["commits"].update(str(commit) for commit in entry["commits"])
            group["files"].update(entry["files"])
    found = [
        {"source": source, "commits": sorted(group["commits"]), "files": sorted(group["files"])}
        for source, group in groups.items()
    ]
    return sorted(found, key=lambda entry: (entry["files"], entry["source"]))


# What every part of one campaign shares.
SHARED_SETTINGS = ("source", "base", "fuzz_seed", "fuzz_count", "sample")


def _check_shards_complete(shards: list[str]) -> None:
    """Shards K/N for every K of one N, each once (none: whole runs, merged as given)."""
    if not shards:
        return
    counts = {shard.split("/")[1] for shard in shards}
    if len(counts) != 1:
        raise ReportError(f"merge: shards of different splits: {', '.join(shards)}")
    count = int(counts.pop())
    missing = sorted(set(range(1, count + 1)) - {int(shard.split("/")[0]) for shard in shards})
    if missing or len(shards) != count:
        detail = f"shard {missing[0]}/{count} is missing" if missing else "a shard is given twice"
        raise ReportError(f"merge: {detail}")


def load(path: Path) -> Report:
    try:
        report: Report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ReportError(f"{path}: not a readable JSON report ({error})") from None
    if not isinstance(report, dict) or report.get("format") != FORMAT:
        raise ReportError(f"{path}: not a mutation report (format {FORMAT})")
    again = report.get("rejudged", [])
    if not isinstance(again, list) or not all(isinstance(key, str) for key in again):
        raise ReportError(
            f"{path}: 'rejudged' is {json.dumps(again)[:40]}, not a list of mutant keys "
            "(list the keys of the mutants judged again, as merge --rejudged writes them)"
        )
    return report


def write_atomically(path: Path, text: str) -> None:
    """Written beside ``path`` and renamed over it: never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(temporary, 0o666 & ~umask)  # an ordinary file's mode, not mkstemp's 0600
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def to_json(report: Report) -> str:
    return json.dumps(report, indent=1, sort_keys=False) + "\n"


def markdown(report: Report) -> str:
    """The readable summary: per port and family, then the survivors."""
    lines = [
        "# Mutation campaign",
        "",
        f"Commit `{report.get('commit')}`"
        + (f", mutants in code changed since `{report['base']}`" if report.get("base") else "")
        + f"; stages: fixed vectors, accumulated vectors, fuzz (seed {report['fuzz_seed']}, "
        f"{report['fuzz_count']} inputs an algorithm).",
        "",
        "| port | family | mutants | killed by fixed vectors | killed only later | survivors "
        "| fixed-vector kill rate | ignored by the configuration |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for port, families in report["figures"].items():
        for family, counts in families.items():
            later = sum(counts[stage] for stage in KILLING_STAGES if stage != "fixed")
            rate = f"{counts['fixed'] / counts['mutants']:.1%}" if counts["mutants"] else "-"
            lines.append(
                f"| {port} | {family} | {counts['mutants']} | {counts['fixed']} | {later} "
                f"| {counts[SURVIVED]} | {rate} | {counts[IGNORED]} |"
            )
    if report.get("note"):
        lines += ["", str(report["note"])]
    if report.get("partial"):
        lines += ["", "Not the whole campaign: " + "; ".join(report["partial"]) + "."]
    if report.get("rejudged"):
        lines += [
            "",
            f"{len(report['rejudged'])} mutants were judged again (run --mutant: after the vectors "
            "their survivors' entries asked for landed, or after a verdict a starved judge gave): "
            "the later verdict is the one counted.",
        ]
    if report.get("judged_at"):
        lines += ["", "Judged at more than one state of the ports and vectors:", ""]
        lines += [_judged_at_line(entry) for entry in report["judged_at"]]
    judged = [mutant for mutant in report["mutants"] if mutant["stage"] != IGNORED]
    if judged:
        lines += [
            "",
            f"{len(judged)} mutants judged in {report['judged_seconds']:.0f} s of judging "
            f"({report['judged_seconds'] / len(judged):.1f} s a mutant), "
            f"{report.get('wall_seconds', 0):.0f} s of wall time with the tools' own work "
            "(summed over the runs merged, which may have run side by side).",
        ]
    later = [mutant for mutant in judged if mutant["stage"] in KILLING_STAGES[1:]]
    lines += ["", "## Killed only after the fixed vectors", ""]
    lines += [
        f"- `{mutant['key']}` ({mutant['stage']}): {mutant['file']} line {mutant['lines'][0]}, "
        f"{mutant['mutator']} → `{_short(mutant['replacement'])}`"
        for mutant in later
    ] or ["None."]
    survivors = [mutant for mutant in judged if mutant["stage"] == SURVIVED]
    lines += ["", "## Survivors", "", "Each has an entry in mutation/survivors.yaml.", ""]
    lines += [
        f"- `{mutant['key']}`: {mutant['file']} line {mutant['lines'][0]}, "
        f"{mutant['mutator']} → `{_short(mutant['replacement'])}`"
        for mutant in survivors
    ] or ["None."]
    return "\n".join(lines) + "\n"


def _judged_at_line(entry: dict[str, Any]) -> str:
    commits = ", ".join(f"`{commit[:12]}`" for commit in entry["commits"])
    return f"- source `{str(entry['source'])[:16]}` (commit {commits}): " + ", ".join(
        entry["files"]
    )


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
