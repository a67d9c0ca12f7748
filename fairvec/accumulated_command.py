"""``fairvec accumulated``: compute the full tier's digests (``full``), find the first
case where an adapter departs from the reference in an accumulated vector (``locate``), and
write a block's expected records for a port to diff its own (``records``).

All three call the reference, so this module imports it only inside the commands: ``fairvec
run`` builds the same parser and never loads the reference.
"""

from __future__ import annotations

import argparse
import codecs
import fnmatch
import json
import sys
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.runner.arguments import positive_seconds

if TYPE_CHECKING:  # the commands import what they use when they run
    from fairvec.data_model import Expected
    from fairvec.runner.accumulated_run import Accumulated
    from fairvec.runner.session import Session

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


def add_accumulated_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    accumulated = commands.add_parser(
        "accumulated",
        help="accumulated vectors: compute the full tier, locate a differing case, write "
        "a block's records",
        description="Accumulated vectors (docs/accumulated.md): `full` computes the 1,000,000-"
        "case digests with the reference; `locate` finds the first case where an adapter "
        "departs from the reference; `records` writes a block's expected records.",
    )
    verbs = accumulated.add_subparsers(title="verbs", required=True, metavar="VERB")
    _add_full(verbs)
    _add_locate(verbs)
    _add_records(verbs)


def _add_full(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    full = verbs.add_parser(
        "full",
        help="compute the full tier's digests (slow: minutes per stream)",
        description="For each selected spec whose accumulated sets say full: true, compute the "
        "1,000,000-case digests with the reference and write spec/<family>/<algorithm>."
        "accumulated.json; then run fairvec generate.",
    )
    full.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    full.add_argument(
        "--algorithm", action="append", default=[], metavar="GLOB", help="only these; repeatable"
    )
    full.set_defaults(handler=_run_full)


def _add_locate(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    locate = verbs.add_parser(
        "locate",
        help="find the first case where an adapter departs from the reference",
        description="Stream an accumulated vector's cases through the adapter, find the first "
        "block whose checkpoint differs (or start at --block), and compare that block case "
        "by case with the reference: fairvec accumulated locate [options] ID -- COMMAND.",
    )
    locate.add_argument("id", help="the accumulated vector's id, as the report names it")
    locate.add_argument(
        "--block", type=_block, metavar="K", help="the first differing block (1 = the first)"
    )
    locate.add_argument("--bundled", choices=("python", "node"), help="use a bundled adapter")
    locate.add_argument(
        "--vectors", type=Path, metavar="DIR", help="vector folder (default: the installed)"
    )
    locate.add_argument(
        "--timeout", type=positive_seconds, default=10.0, metavar="SECONDS",
        help="per-case limit (default 10)",
    )
    locate.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- the adapter command and its arguments"
    )
    locate.set_defaults(handler=_run_locate)


def _add_records(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    records = verbs.add_parser(
        "records",
        help="write a block's expected records, one a line, for a port to diff its own",
        description="Write the records the reference's answers give for block K of an "
        "accumulated vector: exactly the lines its checkpoints hash, one per case in case "
        "order (line n is case (K - 1) x block + n - 1). For a port whose digest differs "
        "while `locate` finds every case agreeing: its records are written otherwise.",
    )
    records.add_argument("id", help="the accumulated vector's id, as the report names it")
    records.add_argument(
        "--block", required=True, metavar="K", help="the block to write (1 = the first)"
    )
    records.add_argument(
        "--out", type=Path, metavar="FILE", help="write them here (default: standard output)"
    )
    records.add_argument(
        "--vectors", type=Path, metavar="DIR", help="vector folder (default: the installed)"
    )
    records.set_defaults(handler=_run_records)


def _block(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a block number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: blocks count from 1")
    return value


# -- full ----------------------------------------------------------------------------------


def _run_full(arguments: argparse.Namespace) -> int:
    # the reference and the generator: only this command runs them (`fairvec run`
    # builds this parser too)
    from fairvec import accumulated_digest
    from fairvec.generate import (
        SchemaCheck,
        accumulate_stream,
        accumulated_generators,
        accumulated_variants,
        full_tier_path,
        vector_id,
    )
    from fairvec.jsonio import write_atomically
    from fairvec.specs import load_spec, spec_paths

    root: Path = arguments.root.resolve()
    spec_root = root / "spec"
    paths = [p for p in spec_paths(spec_root) if _selected(p, arguments.algorithm)]
    specs = [load_spec(path, spec_root) for path in paths]
    specs = [s for s in specs if any(a.get("full") for a in s.accumulated)]
    if not specs:
        raise FairvecError(
            f"{spec_root}: no selected spec has an accumulated set with full: true"
        )
    for spec in specs:
        where = f"spec/{spec.family}/{spec.path.name}"
        check = SchemaCheck(spec.outputs, "output", where)
        streams: dict[str, Any] = {}
        for index, accumulated_set in enumerate(spec.accumulated):
            if not accumulated_set.get("full"):
                continue
            place = f"{where}: accumulated/{index}"
            generators = accumulated_generators(spec, place, accumulated_set)
            for variant in accumulated_variants(spec, accumulated_set):
                full_name = accumulated_set["name"] + accumulated_digest.FULL_SUFFIX
                name = vector_id(spec, full_name, variant)
                started = time.monotonic()
                total = accumulate_stream(
                    spec, accumulated_set, generators, variant, accumulated_digest.TIERS["full"],
                    check, spec_root,
                )
                seconds = time.monotonic() - started
                definition = accumulated_digest.definition(
                    accumulated_set["seed"], generators, variant
                )
                streams[name] = {"definition": definition, "checkpoints": total.checkpoints}
                print(f"{name}: {total.count} cases in {seconds:.0f}s", flush=True)
        document = {
            "format": "fairvec-accumulated-full/1",
            "algorithm": spec.id,
            "comment": "written by `fairvec accumulated full`; fairvec generate copies it into "
            "the vector file (docs/accumulated.md)",
            "vectors": streams,
        }
        path = full_tier_path(spec)
        write_atomically(path, json.dumps(document, indent=1) + "\n")
        print(f"wrote: {path.relative_to(root)}")
    return EXIT_OK


def _selected(path: Path, globs: list[str]) -> bool:
    algorithm_id = f"{path.parent.name}.{path.stem}"
    return not globs or any(fnmatch.fnmatchcase(algorithm_id, glob) for glob in globs)


# -- locate --------------------------------------------------------------------------------


def _run_locate(arguments: argparse.Namespace) -> int:
    # the runner's streaming half: only `locate` needs it
    from fairvec.runner import accumulated_run as streaming
    from fairvec.runner.arguments import adapter_command
    from fairvec.runner.process import become_subreaper
    from fairvec.vectorfiles import default_vectors_root

    become_subreaper()  # as run: a descendant that escapes the adapter's group is ours

    command = adapter_command(arguments)
    root = arguments.vectors or default_vectors_root()
    chosen = streaming.find(root, arguments.id)
    with streaming.open_session(command, timeout=arguments.timeout) as session:
        block = arguments.block or streaming.first_differing_block(session, chosen)
        if block is None:
            print(f"{chosen.id}: every checkpoint matches: the adapter agrees on all "
                  f"{chosen.count} cases")
            return EXIT_OK
        return _compare_block(session, chosen, block)


def _compare_block(session: Session, chosen: Accumulated, block: int) -> int:
    """Case by case through block ``block``, the adapter's answers against the reference's."""
    # the reference: only `locate` runs it
    from fairvec.accumulated_digest import record
    from fairvec.jsonio import first_difference
    from fairvec.reference import InvalidInput, compute
    from fairvec.runner import accumulated_run as streaming

    if block > chosen.blocks:
        raise FairvecError(f"--block {block}: {chosen.id} has {chosen.blocks} block(s)")
    for index, inputs, result in streaming.answers(session, chosen, first_block=block, blocks=1):
        try:
            wanted: Expected = {"output": compute(chosen.algorithm, inputs, chosen.variant)}
        except InvalidInput as error:
            wanted = {"error": error.code}
        if result.status != "pass":
            print(f"{chosen.id} case {index}: the adapter did not answer: {result.message}")
            _print_case(chosen, index, inputs, wanted, None, "")
            return EXIT_FOUND
        if record(wanted) != record(result.got):
            where = first_difference(wanted, result.got) or "(whole answer)"
            _print_case(chosen, index, inputs, wanted, result.got, where)
            return EXIT_FOUND
    first, last = (block - 1) * chosen.block, min(block * chosen.block, chosen.count) - 1
    print(f"{chosen.id}: block {block} agrees with the reference case by case "
          f"(cases {first} to {last}); where the port's own digest of it differs, its records "
          f"are written otherwise: diff them with the ones `fairvec accumulated records "
          f"--block {block} {chosen.id}` writes")
    return EXIT_OK


def _print_case(
    chosen: Accumulated, index: int, inputs: dict[str, Any], wanted: Expected, got: Any, where: str
) -> None:
    # the inputs as drawn (any Unicode scalar value), escaped where stdout cannot show them
    utf8 = codecs.lookup(sys.stdout.encoding or "ascii").name == "utf-8"
    text = partial(json.dumps, ensure_ascii=not utf8)
    print(f"first differing case: {chosen.id} case {index} (block {index // chosen.block + 1})")
    if where:
        print(f"  differs at: {where}")
    print(f"  input:    {text(inputs)}")
    print(f"  expected: {text(wanted)}")
    if got is not None:
        print(f"  got:      {text(got)}")
    print("as a spec case (paste under cases:):")
    case = {"name": f"accumulated-case-{index}", "input": inputs}
    if "error" in wanted:
        case["error"] = wanted["error"]
    print("  - " + text(case))
    sys.stdout.flush()


# -- records -------------------------------------------------------------------------------


def _run_records(arguments: argparse.Namespace) -> int:
    from fairvec.regular_files import written_beside
    from fairvec.runner import accumulated_run as streaming
    from fairvec.vectorfiles import default_vectors_root

    chosen = streaming.find(arguments.vectors or default_vectors_root(), arguments.id)
    block = _records_block(arguments.block, chosen)
    first = (block - 1) * chosen.block
    if arguments.out is None:
        lines = _expected_records(chosen, block)
        sys.stdout.flush()
        sys.stdout.buffer.writelines(lines)
        sys.stdout.buffer.flush()
        return EXIT_OK
    # opened first: an --out that cannot be written is said before the block is computed
    if arguments.out.is_dir():
        raise FairvecError(f"--out {arguments.out}: cannot write it (a folder: name a file)")
    with written_beside(arguments.out, "--out") as stream:
        lines = _expected_records(chosen, block)
        stream.writelines(lines)
    print(f"{chosen.id}: block {block} of {chosen.blocks}: wrote the records of cases {first} "
          f"to {first + len(lines) - 1} to {arguments.out} (line n is case {first} + n - 1)")
    return EXIT_OK


def _records_block(text: str, chosen: Accumulated) -> int:
    """--block as a block of ``chosen``, or a one-line error saying which blocks there are."""
    try:
        block = _block(text)
    except argparse.ArgumentTypeError as error:
        raise FairvecError(f"--block {error} (1 to {chosen.blocks} for {chosen.id})") from None
    if block > chosen.blocks:
        raise FairvecError(
            f"--block {block}: {chosen.id} has {chosen.blocks} block(s) of {chosen.block:,} cases"
        )
    return block


def _expected_records(chosen: Accumulated, block: int) -> list[bytes]:
    """The records of block ``block``, each as the digest hashes it: the reference's
    answers to the stream's cases, written by fairvec.accumulated_digest.record."""
    # the reference: only the commands of this module run it
    from itertools import islice

    from fairvec.accumulated_digest import cases, record
    from fairvec.reference import InvalidInput, compute

    stream = chosen.entry["stream"]
    first = (block - 1) * chosen.block
    size = min(chosen.block, chosen.count - first)
    inputs = islice(cases(stream["seed"], stream["input"]), first, first + size)
    lines = []
    for case in inputs:
        try:
            answer: Expected = {"output": compute(chosen.algorithm, case, chosen.variant)}
        except InvalidInput as error:
            answer = {"error": error.code}
        lines.append(record(answer))
    return lines
