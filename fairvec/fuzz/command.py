"""``fairvec fuzz``: run the fuzzer against an adapter and report.

Exit status as ``fairvec run``: 0 no mismatch, 1 mismatches, 2 bad usage or an adapter
(or the reference) that cannot run.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import secrets
import shlex
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

from fairvec.errors import FairvecError
from fairvec.extras import missing_for, require_for_algorithms
from fairvec.fuzz import MAX_DETAILS
from fairvec.fuzz.engine import Fuzzer, Outcome
from fairvec.fuzz.plan import AlgorithmPlan
from fairvec.fuzz.report import (
    dump_yaml,
    mismatch_document,
    write_mismatches,
    write_reference_failures,
    write_summary,
)
from fairvec.fuzz.space import Space, load_space
from fairvec.jsonio import write_atomically
from fairvec.regular_files import check_not_special
from fairvec.runner.arguments import adapter_command
from fairvec.runner.claims import (
    Claims,
    Fix,
    fix_text,
    pinned_for,
    pinned_values,
    resolve_schemas,
)
from fairvec.runner.process import AdapterStartError
from fairvec.runner.session import Session
from fairvec.specs import Spec, load_spec, spec_paths

EXIT_OK, EXIT_MISMATCH, EXIT_INFRASTRUCTURE = 0, 1, 2


def fuzz_command(arguments: argparse.Namespace) -> int:
    started = time.monotonic()  # --seconds counts from here: the whole run
    command = adapter_command(arguments)
    space = load_space(arguments.space)
    specs = _with_their_extras(_selected_specs(arguments.algorithm, space), arguments.algorithm)
    seed = str(arguments.seed if arguments.seed is not None else secrets.randbelow(2**32))
    if arguments.cases:
        _check_writable(arguments.cases)
    try:
        session = Session(command, timeout=arguments.timeout, window=arguments.window)
    except AdapterStartError as error:
        raise FairvecError(f"adapter {' '.join(command)}: {error}") from None
    try:
        claims = _claims(specs, session, arguments.fix)
        plans = _plans(specs, space, session, claims)
        print(
            f"fairvec fuzz: seed {seed}; adapter {session.hello.name} {session.hello.version}; "
            f"{len(plans)} algorithm(s), up to {arguments.count} inputs each"
            + (f", {arguments.seconds:g} s at most" if arguments.seconds else ""),
            flush=True,
        )
        _print_claims(claims)
        fuzzer = Fuzzer(session, plans, seed, claims.outputs, valid_only=arguments.valid_only)
        outcome = fuzzer.run(arguments.count, arguments.seconds, started)
        reported = outcome.mismatches[: arguments.max_details]
        if arguments.shrink:
            for mismatch in reported:
                fuzzer.shrink(mismatch, arguments.shrink_attempts)
    finally:
        session.close()
    return _report(arguments, outcome, seed, session)


def session_plans(
    session: Session, space: Space, globs: list[str] | None = None, fixes: list[Fix] | None = None
) -> tuple[Claims, list[AlgorithmPlan]]:
    """What ``fairvec fuzz`` fuzzes through ``session``: the adapter's claims and one plan
    per algorithm it implements (of those ``globs`` select, default all). For callers
    that drive a Fuzzer themselves (tests/test_cross_port.py)."""
    specs = _with_their_extras(_selected_specs(globs or [], space), globs or [])
    claims = _claims(specs, session, fixes or [])
    return claims, _plans(specs, space, session, claims)


def _report(arguments: argparse.Namespace, outcome: Outcome, seed: str, session: Session) -> int:
    write_mismatches(sys.stdout, outcome.mismatches, seed, arguments.max_details)
    if arguments.cases:
        documents = outcome.mismatches[: arguments.max_details]
        text = "".join("---\n" + dump_yaml(mismatch_document(m, seed)) for m in documents)
        write_atomically(arguments.cases, text)
    write_summary(sys.stdout, outcome)
    print(f"replay: {_replay(arguments, seed)}")
    write_reference_failures(sys.stderr, outcome.reference_failures)
    if session.infrastructure_error:
        print(
            f"fairvec: error: the adapter stopped for good: {session.infrastructure_error}",
            file=sys.stderr,
        )
        return EXIT_INFRASTRUCTURE
    if outcome.reference_failures:
        return EXIT_INFRASTRUCTURE
    if outcome.unjudged and not any(tally.tried for tally in outcome.tallies.values()):
        # a run that judged nothing must not look like a pass
        print(
            f"fairvec: error: no input was judged: all {len(outcome.unjudged)} were slow or "
            "out of time (raise --timeout or --seconds)",
            file=sys.stderr,
        )
        return EXIT_INFRASTRUCTURE
    return EXIT_MISMATCH if outcome.mismatches else EXIT_OK


def _replay(arguments: argparse.Namespace, seed: str) -> str:
    """The command line that draws exactly these inputs again."""
    words = ["fairvec", "fuzz", "--seed", seed, "--count", str(arguments.count)]
    for glob in arguments.algorithm:
        words += ["--algorithm", glob]
    if arguments.space:
        words += ["--space", str(arguments.space)]
    if arguments.shrink:  # the same mismatches, shrunk the same way
        words += ["--shrink", "--shrink-attempts", str(arguments.shrink_attempts)]
    if arguments.max_details != MAX_DETAILS:
        words += ["--max-details", str(arguments.max_details)]
    for fix in arguments.fix:
        # the value whole: fix.source is for messages, where a long value is cut
        words += ["--fix", fix_text(fix)]
    if arguments.valid_only:
        words.append("--valid-only")
    command = list(arguments.command)
    if arguments.bundled:
        words += ["--bundled", arguments.bundled]
    else:
        words += ["--", *(command[1:] if command[:1] == ["--"] else command)]
    return shlex.join(words)


def _with_their_extras(specs: list[Spec], globs: list[str]) -> list[Spec]:
    """The specs whose reference can run here. Named with --algorithm, an algorithm whose
    extra is missing is refused before any work; picked by default, it is left out with a
    note (as `fairvec run` skips its vectors), so the rest is still fuzzed."""
    if globs:
        require_for_algorithms([spec.id for spec in specs], "fairvec fuzz")
        return specs
    kept = []
    for spec in specs:
        extra = missing_for(spec.id)
        if extra is None:
            kept.append(spec)
        else:
            print(f"fairvec fuzz: {spec.id} left out: its reference needs the '{extra}' extra "
                  f"(pip install 'fairvec[{extra}]')", file=sys.stderr)
    return kept


def _spec_root() -> Path:
    return Path(str(resources.files("fairvec").joinpath("spec")))


def _selected_specs(globs: list[str], space: Space) -> list[Spec]:
    root = _spec_root()
    paths = spec_paths(root)
    known = {f"{path.parent.name}.{path.stem}" for path in paths}
    unknown = space.unknown_algorithms(known)
    if unknown:
        raise FairvecError(
            f"{space.where}: algorithms/{unknown[0]}: no spec has this id (check the spelling)"
        )
    chosen = [
        path
        for path in paths
        if not globs
        or any(fnmatch.fnmatchcase(f"{path.parent.name}.{path.stem}", g) for g in globs)
    ]
    if not chosen:
        raise FairvecError(f"--algorithm {' '.join(globs)}: no spec matches")
    return [load_spec(path, root) for path in chosen]


def _claims(specs: list[Spec], session: Session, fixes: list[Fix]) -> Claims:
    """The adapter's pins and partial outputs, and --fix, over the specs fuzzed."""
    schemas = {spec.id: (spec.inputs, spec.outputs) for spec in specs}
    variants = {spec.id: spec.variants for spec in specs}
    return resolve_schemas(session.hello, fixes, schemas, variants)


def _print_claims(claims: Claims) -> None:
    for algorithm, pinned in sorted(claims.pins.items()):
        print(f"fairvec fuzz: {algorithm}: every input holds {pinned_values(pinned)}")
    for algorithm, fields in sorted(claims.outputs.items()):
        print(f"fairvec fuzz: {algorithm}: PARTIAL: only {', '.join(fields)} judged")


def _plans(
    specs: list[Spec], space: Space, session: Session, claims: Claims
) -> list[AlgorithmPlan]:
    implemented = session.hello.algorithms
    plans = []
    for spec in specs:
        if spec.id not in implemented:
            continue
        variants = [v for v in spec.variants if v in implemented[spec.id]]
        if spec.variants and not variants:
            print(
                f"fairvec fuzz: {spec.id}: the adapter names none of its variants "
                f"{spec.variants}; not fuzzed",
                file=sys.stderr,
            )
            continue
        settings = space.for_algorithm(spec.id)
        for group, pinned in _variants_by_pins(claims, spec.id, variants):
            plans.append(AlgorithmPlan(spec, settings, group, space.where, pinned))
    if not plans:
        raise FairvecError(
            f"the adapter implements none of the {len(specs)} selected algorithm(s) "
            f"(its hello names {', '.join(sorted(implemented)) or 'nothing'})"
        )
    return plans


def _variants_by_pins(
    claims: Claims, algorithm: str, variants: list[str]
) -> list[tuple[list[str], dict[str, Any]]]:
    """The variants fuzzed together: all of them, unless a pin holds for some variants
    only (ALGORITHM@VARIANT), when each set of pins gets its own plan."""
    if not any(key.startswith(f"{algorithm}@") for key in claims.pins):
        return [(variants, claims.pins.get(algorithm, {}))]
    groups: dict[str, tuple[list[str], dict[str, Any]]] = {}
    for variant in variants:
        pinned = pinned_for(claims, algorithm, variant)
        groups.setdefault(json.dumps(pinned, sort_keys=True), ([], pinned))[0].append(variant)
    return list(groups.values())


def _check_writable(path: Path) -> None:
    if path.is_dir():
        raise FairvecError(f"--cases {path}: is a folder; give a file name")
    check_not_special(path, "--cases")  # a device or FIFO would be replaced by the file
    if not path.parent.is_dir():
        raise FairvecError(f"--cases {path}: the folder {path.parent} does not exist")
