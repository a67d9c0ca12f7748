"""The source pages (docs/sources/): one page per source document the specs cite, readable
in a clone, which does not have the documents themselves (they live in the project's
``shared/``).

A page has two parts. Above the marker, written by hand in the project's own words: what
the document is, where its public original is, the facts the suite takes from it. Below
the marker, generated from the specs so that no page can miss what a spec cites: every
algorithm built from the document with the sections it cites, its summary, every worked
example (``document: {section, states}``) with the values the document states, the quirks
(where the document needs a reading, and what the reference does) and the public references.

    python -m fairvec.source_pages --write   # rewrite the generated part of every page
    python -m fairvec.source_pages --check   # exit 1 when a page is missing or stale

tests/test_source_pages.py runs the check, like ``fairvec generate --check`` for vectors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fairvec.jsonio import write_atomically
from fairvec.specs import Spec, load_specs, source_page

MARKER = (
    "<!-- GENERATED below from the specs by `python -m fairvec.source_pages --write`; "
    "edit the specs, not this part -->"
)


def specs_by_source(specs: Sequence[Spec]) -> dict[str, list[Spec]]:
    """Each cited document, with the specs citing it, in id order."""
    cited: dict[str, list[Spec]] = {}
    for spec in sorted(specs, key=lambda spec: spec.id):
        cited.setdefault(spec.source["document"], []).append(spec)
    return cited


def render_generated(document: str, specs: Sequence[Spec]) -> str:
    """The generated part of ``document``'s page (below the marker)."""
    lines = [MARKER, "", f"## What the suite takes from `{document}`", ""]
    lines += _algorithm_table(specs)
    lines += _worked_examples(specs)
    lines += _quirks(specs)
    lines += _references(specs)
    return "\n".join(lines).rstrip() + "\n"


def _algorithm_table(specs: Sequence[Spec]) -> list[str]:
    lines = [
        "### Algorithms",
        "",
        "| algorithm | sections cited | what it computes |",
        "| --- | --- | --- |",
    ]
    for spec in specs:
        sections = "; ".join(f"“{section}”" for section in spec.source["sections"])
        summary = " ".join(spec.summary.split()).replace("|", "\\|")
        link = f"[`{spec.id}`](../../spec/{spec.family}/{spec.path.stem}.yaml)"
        lines.append(f"| {link} | {_cell(sections)} | {summary} |")
    return [*lines, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _worked_examples(specs: Sequence[Spec]) -> list[str]:
    examples = [(spec, case) for spec in specs for case in spec.cases if "document" in case]
    lines = ["### Worked examples: the values the document states", ""]
    if not examples:
        return [*lines, "None: the document prints no worked example the suite uses.", ""]
    lines += [
        f"{len(examples)} cases, each a vector `<algorithm>/<case>` whose expected output "
        "contains these values (computed by the reference; a quirk marked *disagrees* is "
        "where it does not):",
        "",
    ]
    for spec, case in examples:
        example = case["document"]
        disagreeing = [
            quirk["id"]
            for quirk in spec.quirks
            if quirk.get("disagrees_with_document") and case["name"] in quirk["exercised_by"]
        ]
        note = f" (disagrees: quirk {', '.join(disagreeing)})" if disagreeing else ""
        lines.append(f"- `{spec.id}/{case['name']}`, section “{example['section']}”{note}:")
        states = [_state_line(key, value) for key, value in example["states"].items()]
        lines += ["", "  ```json", "  {"]
        lines += [f"    {line}," for line in states[:-1]] + [f"    {line}" for line in states[-1:]]
        lines += ["  }", "  ```", ""]
    return lines


def _state_line(key: str, value: Any) -> str:
    """One stated value: its key and its compact JSON (document's characters kept)."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return f"{json.dumps(key, ensure_ascii=False)}: {text}"


def _quirks(specs: Sequence[Spec]) -> list[str]:
    quirks = [(spec, quirk) for spec in specs for quirk in spec.quirks]
    if not quirks:
        return []
    lines = [
        "### Quirks: where the document needs a reading",
        "",
        "What the reference does (the spec's `quirks`, which also say what the document says "
        "and why):",
        "",
    ]
    for spec, quirk in quirks:
        mark = " *disagrees with the document*" if quirk.get("disagrees_with_document") else ""
        does = " ".join(quirk["reference_does"].split())
        lines.append(f"- `{spec.id}` `{quirk['id']}`{mark}: {does}")
    return [*lines, ""]


def _references(specs: Sequence[Spec]) -> list[str]:
    references = sorted({ref for spec in specs for ref in spec.source.get("references", [])})
    upstream = sorted({item for spec in specs for item in spec.source.get("upstream", [])})
    lines: list[str] = []
    if references:
        lines += ["### Public sources the specs cite", ""]
        lines += [f"- {reference}" for reference in references]
        lines.append("")
    if upstream:
        lines += ["### Real data reproduced (`upstream/`, see upstream/PROVENANCE.md)", ""]
        lines += [f"- {item}" for item in upstream]
        lines.append("")
    return lines


def expected_pages(root: Path) -> dict[Path, str]:
    """Each page's path and its generated part, from the specs under ``root``."""
    cited = specs_by_source(load_specs(root / "spec"))
    return {root / source_page(doc): render_generated(doc, specs) for doc, specs in cited.items()}


def _with_generated(current: str | None, document: str, generated: str) -> str:
    """``current`` with its generated part replaced (a page without a head gets a stub)."""
    if current is None or MARKER not in current:
        head = current or f"# `{document}`\n\n(What the document is, in the project's words.)\n"
        return head.rstrip() + "\n\n" + generated
    return current[: current.index(MARKER)] + generated


def stale_pages(root: Path) -> list[str]:
    """One line per page that is missing, has no hand-written part, or whose generated
    part differs from what the specs give now; empty when all are current."""
    problems = []
    for path, generated in expected_pages(root).items():
        where = path.relative_to(root).as_posix()
        if not path.is_file():
            problems.append(f"{where}: missing (a spec cites its source)")
            continue
        text = path.read_text(encoding="utf-8")
        if MARKER not in text or not text[: text.index(MARKER)].strip():
            problems.append(f"{where}: no hand-written part above the generated marker")
        elif text[text.index(MARKER) :] != generated:
            problems.append(f"{where}: stale")
    return problems


def write_pages(root: Path) -> list[str]:
    """Rewrite every page's generated part; the pages written, by path."""
    written = []
    for path, generated in expected_pages(root).items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        document = path.stem
        text = _with_generated(current, document, generated)
        if text != current:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
            written.append(path.relative_to(root).as_posix())
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fairvec.source_pages", description=__doc__.split("\n\n")[0]
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite the generated parts")
    action.add_argument("--check", action="store_true", help="exit 1 when a page is stale")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    arguments = parser.parse_args(argv)
    if arguments.write:
        for where in write_pages(arguments.root):
            print(f"wrote {where}")
        return 0
    problems = stale_pages(arguments.root)
    for problem in problems:
        print(problem)
    if problems:
        print("run `python -m fairvec.source_pages --write` and commit the pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
