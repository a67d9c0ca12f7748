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


def merge(reports: Sequence[Report], allow_partial: bool = False) -> Report:
    """The report of the whole campaign from its parts: the shards of one run (each
    K/N once: the same mutants and figures as one run over every shard,
    tests/test_mutation.py checks it), and runs over other files or ports."""
    if not reports:
        raise ReportError("merge: no report given")
    common = [{key: report.get(key) for key in SHARED_SETTINGS} for report in reports]
    for report, setting in zip(reports, common, strict=True):
        if setting != common[0]:
            differs = sorted(key for key in setting if setting[key] != common[0][key])
            raise ReportError(
                f"merge: shard {report.get('shard')} was run with another {differs[0]} "
                "(merge the parts of one campaign: same code, vectors and stage settings)"
            )
    runs: dict[str, list[Report]] = {}
    for report in reports:
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
    meta = {"commit": reports[0].get("commit"), **common[0]}
    if partial or any(report.get("partial") for report in reports):
        meta["partial"] = sorted({*partial, *(p for r in reports for p in r.get("partial", []))})
    meta["files"] = sorted({file for report in reports for file in report["files"]})
    meta["shard"] = None
    meta["wall_seconds"] = round(sum(report.get("wall_seconds", 0.0) for report in reports), 3)
    return build([mutant for report in reports for mutant in report["mutants"]], meta)


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


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
