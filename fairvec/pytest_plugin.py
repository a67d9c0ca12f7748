"""fairvec's pytest plugin: a Python port runs the vectors inside its own test suite.

A test module plugs the port in by defining a function named ``fairvec_port``::

    def fairvec_port(algorithm: str, input: dict, variant: str | None) -> dict:
        ...  # the output object; raise an exception with a ``code`` to reject the input

and the plugin collects one test per selected vector under it, named by the vector's id,
judged by the runner's own rules (fairvec.runner.compare.judge); then, as ``fairvec run``
does, one per accumulated vector of the selected tier, its stream's answers digested and
compared block by block (so both run, count and digest the same vectors). docs/pytest-plugin.md is
the user's guide.

The plugin is loaded by its ``pytest11`` entry point into every pytest run, fairvec's own
included, so it must cost nothing where nobody asks for it: it imports only pytest and
the standard library at load time, registers options, and looks at one attribute name per
collected module member. Vectors are read, and fairvec's heavier modules imported, only
once a ``fairvec_port`` is collected. It reads vectors from files (the installed suite, a
folder, or a verified release), never by importing the reference.
"""

from __future__ import annotations

import copy
import difflib
import fnmatch
import inspect
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from fairvec import __version__  # the package is loaded already: costs nothing

if TYPE_CHECKING:  # plugin load (see below): types only
    from fairvec.data_model import Shown, Vector
    from fairvec.runner.accumulated_run import Accumulated

# fairvec's other modules are imported in the functions that use them ("# plugin load"):
# loaded into every pytest run, the plugin imports none of them until a port is collected
# (vectorfiles 20 ms, runner.report 16 ms, release.verify 120 ms; tests/test_pytest_plugin.py
# checks that a run without a port loads only fairvec and fairvec.pytest_plugin).

PORT_NAME = "fairvec_port"
SHOWN_VALUE = 1000  # characters of an input, expected or got shown on a failure
SHOWN_DIFF_LINES = 40  # lines of the expected/got diff shown on a failure
# The command-line options; any of them asks for the vectors, so a run that gives one
# and collects no port is a usage error rather than a silent green run.
OPTIONS = ("algorithm", "tag", "tier", "vectors", "suite", "trusted_key", "min_version")
TIERS = ("default", "full", "none")  # of the accumulated vectors, as fairvec run's --tier
DOCS = "docs/pytest-plugin.md"

Port = Callable[[str, dict[str, Any], str | None], Any]


class Rejected(Exception):
    """Raise from a port to reject an input: ``code`` is compared with the vector's
    expected error code. Any exception with a string ``code`` attribute does the same."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code


class VectorFailed(Exception):
    """The port's answer does not match the vector; carries what the failure shows."""

    def __init__(self, message: str, vector: Shown, got: Any) -> None:
        super().__init__(message)
        self.message = message
        self.vector = vector
        self.got = got


@dataclass(frozen=True)
class Selected:
    """One selected vector, with what judging it needs."""

    vector: Vector
    algorithm: str
    output_schema: dict[str, Any]


@dataclass(frozen=True)
class Selection:
    vectors: list[Selected]
    source: str  # where they came from, for the summary line
    # the accumulated vectors selected (docs/accumulated.md), run after the fixed ones
    accumulated: tuple[Accumulated, ...] = ()

    @property
    def count(self) -> int:
        return len(self.vectors) + len(self.accumulated)


_SELECTION = pytest.StashKey[Selection]()
_PORTS = pytest.StashKey[int]()


# -- hooks ---------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(
        "fairvec", f"fairvec vectors, run against the {PORT_NAME} a test module defines"
    )
    group.addoption(
        "--fairvec-algorithm",
        action="append",
        default=[],
        metavar="GLOB",
        help="only algorithms matching (e.g. 'battle.*'); repeatable",
    )
    group.addoption(
        "--fairvec-tag",
        action="append",
        default=[],
        metavar="TAG",
        help="only vectors carrying one of these tags (e.g. document-example); repeatable",
    )
    group.addoption(
        "--fairvec-tier",
        choices=TIERS,
        metavar="TIER",
        help="accumulated vectors, as fairvec run's --tier: default (10,000 cases each, the "
        "default), full (where committed) or none",
    )
    group.addoption(
        "--fairvec-vectors", metavar="DIR", help="a vectors folder (default: the installed suite)"
    )
    group.addoption(
        "--fairvec-suite",
        metavar="ARCHIVE",
        help="a signed release (fairvec-vectors-X.Y.Z.tar.gz), verified before it is read",
    )
    group.addoption(
        "--fairvec-trusted-key",
        metavar="KEY",
        help="the key --fairvec-suite must be signed by (allowed_signers, OpenSSH or minisign)",
    )
    group.addoption(
        "--fairvec-min-version", metavar="X.Y.Z", help="refuse a release older than this"
    )
    parser.addini("fairvec_algorithm", "fairvec: algorithm globs run", type="linelist")
    parser.addini("fairvec_tag", "fairvec: only vectors with one of these tags", type="linelist")
    parser.addini("fairvec_tier", "fairvec: accumulated vectors' tier (default, full, none)")
    parser.addini("fairvec_vectors", "fairvec: a vectors folder (relative to the ini file)")
    parser.addini("fairvec_suite", "fairvec: a signed release archive (relative to the ini file)")
    parser.addini("fairvec_trusted_key", "fairvec: the release's trusted key")
    parser.addini("fairvec_min_version", "fairvec: the oldest release version accepted")


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(
    collector: pytest.Module | pytest.Class, name: str, obj: object
) -> pytest.Collector | None:
    if name != PORT_NAME or not isinstance(collector, pytest.Module):
        return None  # the whole cost of the plugin for everybody else
    collector.config.stash[_PORTS] = collector.config.stash.get(_PORTS, 0) + 1
    suite: pytest.Collector = VectorSuite.from_parent(collector, name=name, port=obj)
    return suite


def pytest_collection_modifyitems(config: pytest.Config) -> None:
    if config.stash.get(_PORTS, 0):
        return
    given = [option for option in OPTIONS if config.getoption(f"fairvec_{option}")]
    if given:
        flag = "--fairvec-" + given[0].replace("_", "-")
        raise pytest.UsageError(
            f"fairvec: {flag} given, but no collected test module defines {PORT_NAME}"
            f"(algorithm, input, variant); define one (see {DOCS}) or drop {flag}"
        )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    selection = config.stash.get(_SELECTION, None)
    if selection is None:
        return
    from fairvec.vectorfiles import vectors_digest  # plugin load (see the top)

    # as fairvec run digests them: the fixed vectors, then the accumulated ones
    shown = [selected.vector for selected in selection.vectors]
    digest = vectors_digest([*shown, *(one.vector for one in selection.accumulated)])
    accumulated = f" ({len(selection.accumulated)} accumulated)" if selection.accumulated else ""
    terminalreporter.write_line(
        f"fairvec {__version__}: {selection.count} vectors{accumulated} from "
        f"{selection.source}, vectors {digest}"
    )


# -- collection ----------------------------------------------------------------------------


class VectorSuite(pytest.Collector):
    """The vectors selected, one test each, run against one module's ``fairvec_port``."""

    def __init__(self, *, port: object, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.port = port

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        port = _checked_port(self.port, self.path)
        for selected in _selection(self.config).vectors:
            item = VectorItem.from_parent(
                self, name=selected.vector["id"], selected=selected, port=port
            )
            # -k also matches the algorithm and the tags: -k document-example
            item.extra_keyword_matches.update([selected.algorithm, *selected.vector["tags"]])
            yield item
        for chosen in _selection(self.config).accumulated:
            streamed = AccumulatedItem.from_parent(self, name=chosen.id, chosen=chosen, port=port)
            streamed.extra_keyword_matches.update([chosen.algorithm, *chosen.entry["tags"]])
            yield streamed

    def repr_failure(  # type: ignore[override]  # a one-line message, not a traceback
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str:
        from fairvec.errors import FairvecError  # plugin load (see the top)

        if isinstance(excinfo.value, FairvecError):
            return f"fairvec: {excinfo.value}"
        return str(super().repr_failure(excinfo))


def _checked_port(port: object, path: Path) -> Port:
    from fairvec.errors import FairvecError  # plugin load (see the top)

    if not callable(port):
        raise FairvecError(
            f"{path}: {PORT_NAME} is a {type(port).__name__}; make it a function "
            f"(algorithm, input, variant) -> output dict (see {DOCS})"
        )
    try:
        inspect.signature(port).bind("battle.move", {}, None)
    except TypeError:
        raise FairvecError(
            f"{path}: {PORT_NAME} must take three arguments (algorithm, input, variant) "
            f"(see {DOCS})"
        ) from None
    except ValueError:  # a builtin without a signature: trust it
        pass
    return port


def _selection(config: pytest.Config) -> Selection:
    """The selected vectors, read once per run however many modules define a port."""
    selection = config.stash.get(_SELECTION, None)
    if selection is None:
        selection = _read_selection(config)
        config.stash[_SELECTION] = selection
    return selection


def _read_selection(config: pytest.Config) -> Selection:
    # plugin load (see the top)
    from fairvec.errors import FairvecError
    from fairvec.vectorfiles import load_vector_files

    root, source = _vectors_root(config)
    globs: list[str] = _setting(config, "algorithm")
    tags = set(_setting(config, "tag"))
    files = load_vector_files(
        root, lambda name: not globs or any(fnmatch.fnmatchcase(name, g) for g in globs)
    )
    vectors = [
        Selected(vector, file.algorithm, file.output_schema)
        for file in files
        for vector in file.vectors
        if not tags or tags & set(vector["tags"])
    ]
    accumulated = _accumulated(config, files, tags)
    if not (vectors or accumulated):
        raise FairvecError(
            f"{root}: no vector matches the selection (check --fairvec-algorithm "
            f"{' '.join(globs) or '(any)'} and --fairvec-tag {' '.join(sorted(tags)) or '(any)'})"
        )
    return Selection(vectors, source, tuple(accumulated))


def _accumulated(config: pytest.Config, files: list[Any], tags: set[str]) -> list[Accumulated]:
    """The accumulated vectors of the files read, chosen as fairvec run chooses them for
    the same --tier (default: the default tier) and tags, so that both run, and digest,
    the same vectors."""
    from fairvec.errors import FairvecError
    from fairvec.runner.accumulated_run import select_for_run  # plugin load (see the top)

    tier = _setting(config, "tier") or "default"
    if tier not in TIERS:  # (the command line's choices are checked by pytest; the ini's here)
        raise FairvecError(f"fairvec_tier = {tier}: give one of {', '.join(TIERS)}")
    return select_for_run(files, keywords=(), tags=sorted(tags), excluded_tags=(), tier=tier)


def _vectors_root(config: pytest.Config) -> tuple[Path, str]:
    """The vectors folder: a verified release's, a given folder, or the installed suite."""
    # plugin load (see the top)
    from fairvec.errors import FairvecError
    from fairvec.vectorfiles import default_vectors_root

    folder = _path_setting(config, "vectors")
    archive = _path_setting(config, "suite")
    key = _path_setting(config, "trusted_key")
    if folder and archive:
        raise FairvecError("give --fairvec-vectors or --fairvec-suite, not both")
    if archive is None:
        if key or _setting(config, "min_version"):
            raise FairvecError(
                "--fairvec-trusted-key and --fairvec-min-version need --fairvec-suite"
            )
        root = folder or default_vectors_root()
        return root, str(root)
    if key is None:
        raise FairvecError(
            f"--fairvec-suite {archive} needs --fairvec-trusted-key KEY: a release is "
            "read only once its signature is checked"
        )
    from fairvec.release.verify import open_verified_suite  # plugin load (see the top)

    suite = open_verified_suite(archive, key, _setting(config, "min_version") or None)
    config.add_cleanup(suite.close)  # the extraction folder goes when the run ends
    return suite.vectors, f"release {suite.version} ({archive.name}, signed by {suite.signer})"


def _setting(config: pytest.Config, name: str) -> Any:
    """The command line's value, else the ini file's."""
    given = config.getoption(f"fairvec_{name}")
    return given if given else config.getini(f"fairvec_{name}")


def _path_setting(config: pytest.Config, name: str) -> Path | None:
    """A path option: the command line's, from where pytest was started; the ini file's,
    from the ini file's folder (as pytest reads its own path settings)."""
    given = config.getoption(f"fairvec_{name}")
    if given:
        return config.invocation_params.dir / str(given)
    written = config.getini(f"fairvec_{name}")
    if not written:
        return None
    base = config.inipath.parent if config.inipath else config.rootpath
    return base / str(written)


# -- running one vector --------------------------------------------------------------------


class VectorItem(pytest.Item):
    """One vector: ask the port, judge its answer as the runner would."""

    def __init__(self, *, selected: Selected, port: Port, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.selected = selected
        self.port = port

    def runtest(self) -> None:
        __tracebackhide__ = True  # a failure shows the port's frames, not the plugin's
        from fairvec.runner.compare import judge  # plugin load (see the top)

        vector, algorithm = self.selected.vector, self.selected.algorithm
        response = ask(self.port, algorithm, vector)
        result = judge(vector, algorithm, self.selected.output_schema, response)
        if result.status == "skip":
            pytest.skip(result.message)
        if result.status != "pass":
            raise VectorFailed(result.message, vector, result.got)

    def repr_failure(  # type: ignore[override]  # text for ours, pytest's for the port's own
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str:
        if isinstance(excinfo.value, VectorFailed):
            return describe_failure(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{PORT_NAME}: {self.name}"


class AccumulatedItem(pytest.Item):
    """One accumulated vector (docs/accumulated.md): every case of its stream asked of the
    port in turn, the answers digested as fairvec run digests an adapter's, and the
    digest after each block compared with the vector's checkpoints."""

    def __init__(self, *, chosen: Accumulated, port: Port, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chosen = chosen
        self.port = port

    def runtest(self) -> None:
        __tracebackhide__ = True
        from fairvec import accumulated_digest  # plugin load (see the top)
        from fairvec.runner.accumulated_run import collect

        chosen = self.chosen
        expected = chosen.entry["expected"]
        stream = chosen.entry["stream"]
        total = accumulated_digest.Accumulator(chosen.block)
        inputs = accumulated_digest.cases(stream["seed"], stream["input"])
        for index in range(chosen.count):
            case = self._case(index, next(inputs))
            result = collect(case, chosen.algorithm, {}, ask(self.port, chosen.algorithm, case))
            if result.status == "skip":
                pytest.skip(f"case {index}: the port answered unsupported")
            try:
                total.add(result.got)
            except (ValueError, TypeError) as error:  # a NaN in an error's code, say
                raise VectorFailed(f"the answer is not JSON: {error}", case, result.got) from None
            block = len(total.checkpoints)
            if (
                total.count % chosen.block == 0
                and total.checkpoints[-1] != expected["checkpoints"][block - 1]
            ):
                raise VectorFailed(self._differs(block), chosen.vector, total.checkpoints[-1])
        if total.digest != expected["digest"]:  # a last, partial block
            raise VectorFailed(self._differs(chosen.blocks), chosen.vector, total.digest)

    def _case(self, index: int, inputs: dict[str, Any]) -> Vector:
        """A case as a vector, for ask() and a failure's text: it has no expectation of
        its own (only the stream's digest has one)."""
        chosen = self.chosen
        case = {
            "id": f"{chosen.id}#{index}",
            "variant": chosen.variant,
            "input": inputs,
            "expected": "(none of its own: the stream's digest is checked)",
            "tags": chosen.entry["tags"],
        }
        return cast("Vector", case)

    def _differs(self, block: int) -> str:
        chosen = self.chosen
        first, last = (block - 1) * chosen.block, min(block * chosen.block, chosen.count) - 1
        return (
            f"the digest differs from block {block} of {chosen.blocks} on (cases {first} to "
            f"{last}); the expected answers of that block: fairvec accumulated records "
            f"{chosen.id} --block {block}"
        )

    def repr_failure(  # type: ignore[override]  # text for ours, pytest's for the port's own
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str:
        if isinstance(excinfo.value, VectorFailed):
            return describe_failure(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{PORT_NAME}: {self.name}"


def ask(port: Port, algorithm: str, vector: Vector) -> dict[str, Any]:
    """The port's answer as an adapter protocol response, so judge() sees what it sees
    from an adapter: an output (as JSON would carry it), an error code, or unsupported.
    Any other exception is the port's own bug, and propagates with its traceback."""
    __tracebackhide__ = True
    try:
        # a copy: a port that changes its input must not change the vector shown on failure
        output = port(algorithm, copy.deepcopy(vector["input"]), vector["variant"])
    except NotImplementedError as unsupported:
        reason = str(unsupported)
        return {"unsupported": True, "reason": reason} if reason else {"unsupported": True}
    except Exception as error:
        code = getattr(error, "code", None)
        if isinstance(code, str) and code:
            message = str(error)
            return {"error": {"code": code, "message": "" if message == code else message}}
        raise
    return {"output": as_json(output, vector)}


def as_json(output: Any, vector: Vector) -> Any:
    """``output`` as an adapter would send it: tuples become lists, keys strings; NaN,
    infinities and objects JSON cannot carry fail the vector."""
    try:
        return json.loads(json.dumps(output, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise VectorFailed(
            f"the port's output is not JSON ({error})", vector, {"output": repr(output)}
        ) from None


def describe_failure(failure: VectorFailed) -> str:
    """What a person needs to see: the judge's verdict (it names the first difference),
    input, expected, got, and a diff of expected and got."""
    from fairvec.runner.report import printable  # plugin load (see the top)

    vector = failure.vector
    lines = [
        f"{vector['id']}  [{', '.join(vector['tags'])}]",
        printable(failure.message),
        f"input:    {_shown(vector['input'])}",
        f"expected: {_shown(vector['expected'])}",
        f"got:      {_shown(failure.got)}",
    ]
    diff = list(_diff(vector["expected"], failure.got))
    if diff:
        lines.append("diff (- expected, + got):")
        lines.extend(printable(line) for line in diff[:SHOWN_DIFF_LINES])
        if len(diff) > SHOWN_DIFF_LINES:
            lines.append(f"... and {len(diff) - SHOWN_DIFF_LINES} more diff lines")
    return "\n".join(lines)


def _shown(value: Any) -> str:
    from fairvec.runner.report import printable  # plugin load (see the top)

    text = printable(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return text if len(text) <= SHOWN_VALUE else text[:SHOWN_VALUE] + f" ... ({len(text)} chars)"


def _diff(expected: Any, got: Any) -> Iterator[str]:
    """A unified diff of the two as indented JSON, keys sorted: the changed lines only."""
    left = json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    right = json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    for line in difflib.unified_diff(left, right, lineterm="", n=1):
        if not line.startswith(("---", "+++")):
            yield line[:SHOWN_VALUE]
