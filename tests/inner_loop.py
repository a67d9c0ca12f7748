"""Which tests the inner loop (``pytest -n auto -m 'not heavy'``, the README's command before
every commit) leaves to the test command, which runs every test.

A test is ``heavy`` when it is marked so (it goes over a whole family's vectors, every
algorithm or the suite; it walks chains or streams; it calls an outside tool or library),
or when it *runs a port*: it runs ``fairvec`` (the command, or ``fairvec run`` or ``fuzz``
through ``fairvec.cli.main`` in process), a runner session (which starts its adapter), a
program or a pytest session of its own. Each such run costs from half a second to several
seconds of CPU (a Python process importing the runner, an adapter importing the reference);
the suite holds over 600 such tests, which took the inner loop to seven minutes. A test
that only names such a helper counts too (hold it in a tuple, which is not followed, to
name it without running it). Runs are found in the test's code, the code of the helpers of its
module and of support.py it calls, and its fixtures' (:func:`runs_a_port`), so a new test is
sorted as it is written. A test marked ``smoke`` stays in the loop even though it runs a
port: each module whose every test runs one keeps one (tests/test_inner_loop.py checks that
no module drops out of the loop).
"""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

# Fixtures that run a pytest session (the plugin's tests run example projects).
RUNNING_FIXTURES = frozenset({"pytester", "testdir"})


def _starters() -> set[int]:
    """Ids of what runs a port or a program: support's ``fairvec`` (its other run helpers
    call it), the runner's sessions (each starts the adapter it is given) and subprocess.
    Looked up by name, so a renamed one drops out here rather than breaking collection:
    tests/test_inner_loop.py then fails on its sample of that kind of run."""
    import support

    from fairvec.runner import session

    found = [
        support.fairvec,
        getattr(session, "Session", None),
        getattr(session, "ParallelSession", None),
        subprocess,
        subprocess.run,
        subprocess.Popen,
        subprocess.check_output,
        subprocess.check_call,
        subprocess.call,
    ]
    return {id(thing) for thing in found if thing is not None}


def _entry_points() -> set[int]:
    """Ids of the command's entry points: called in process, they run a port only for the
    commands that start one (PORT_COMMANDS)."""
    from fairvec import cli

    return {id(cli.main), id(cli.entry)}


# The commands that start an adapter: ``fairvec run`` and ``fairvec fuzz``.
PORT_COMMANDS = frozenset({"run", "fuzz"})


ENTRY_POINTS = _entry_points()


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A function's code and that of the functions, lambdas and comprehensions inside it."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def _calls_a_starter(function: Any, starters: set[int], known: dict[int, bool]) -> bool:
    """Whether ``function`` names a starter, directly or through a function of the tests'
    own (its module's, support.py's) that it names. ``known``: the answers so far, by
    function (a helper shared by many tests is read once)."""
    function = getattr(function, "__func__", function)  # a fixture or a method
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    if not isinstance(function, types.FunctionType):
        return False
    if id(function) not in known:
        known[id(function)] = False  # (while it is read: a helper calling itself)
        known[id(function)] = any(
            _starts(code, function, starters, known) for code in _code_objects(function.__code__)
        )
    return known[id(function)]


def _starts(
    code: types.CodeType, function: types.FunctionType, starters: set[int], known: dict[int, bool]
) -> bool:
    for thing in _named(code, function.__globals__):
        if id(thing) in starters:
            return True
        if id(thing) in ENTRY_POINTS and PORT_COMMANDS.intersection(_constants(code)):
            return True  # main(["run", ...]) in process
        if _is_tests_own(thing, function) and _calls_a_starter(thing, starters, known):
            return True
    return False


def _constants(code: types.CodeType) -> Iterator[Any]:
    """The constants of ``code``, those inside tuples too (``["run", "-k", x]`` is built
    from one)."""
    for constant in code.co_consts:
        if isinstance(constant, (tuple, frozenset)):
            yield from constant
        elif not isinstance(constant, types.CodeType):
            yield constant


def _named(code: types.CodeType, names: dict[str, Any]) -> Iterator[Any]:
    """What ``code`` names: its module's globals, and what it imports itself (``import
    subprocess`` or ``from support import fairvec`` inside a test: the module's name and
    the imported names are among the code's names)."""
    for name in code.co_names:
        if name in names:
            yield names[name]
        module = sys.modules.get(name)
        if module is not None:
            yield module
            yield from (getattr(module, other, None) for other in code.co_names)


def _is_tests_own(thing: Any, caller: types.FunctionType) -> bool:
    return isinstance(thing, types.FunctionType) and (
        thing.__module__ in (caller.__module__, "support")
    )


def calls_a_port(function: Any) -> bool:
    """Whether ``function`` runs fairvec, a port or a program, itself or through a helper."""
    return _calls_a_starter(function, _starters(), {})


def runs_a_port(item: pytest.Item, starters: set[int], known: dict[int, bool]) -> bool:
    """Whether the test ``item`` runs fairvec, a port, a program or a pytest session: in its
    own code, in a helper it calls or in one of its fixtures."""
    function = getattr(item, "function", None)
    if function is not None and _calls_a_starter(function, starters, known):
        return True
    fixtures = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        if name in RUNNING_FIXTURES:
            return True
        definitions = fixtures.name2fixturedefs.get(name, ()) if fixtures else ()
        if any(_calls_a_starter(d.func, starters, known) for d in definitions):
            return True
    return False


# Tests of modules another change owns, marked from here by node id (without parameters):
# ``heavy`` as the marker's description says; ``smoke`` the module's one run kept in the loop.
HEAVY_BY_NAME = frozenset(
    {
        # every vector file of the suite, read each way or loaded whole
        "tests/test_runner_startup.py::"
        "test_every_vector_file_is_read_by_orjson_whole_or_line_by_line_as_json_reads_it",
        "tests/test_runner_skeletal.py::test_tags_select_from_skeletons_what_they_select_from_whole_files",
        "tests/test_runner_skeletal.py::test_without_the_cache_every_file_is_read_whole",
    }
)
SMOKE_BY_NAME = frozenset(
    {"tests/test_runner_misbehaving.py::test_a_line_over_the_cap_is_charged_and_cut"}
)


def _name(item: pytest.Item) -> str:
    return item.nodeid.split("[", 1)[0]


# Each collected module's file name: whether the inner loop runs a test of it (filled at
# collection, before -m or -k deselect anything; tests/test_inner_loop.py reads it).
KEPT_BY_MODULE: dict[str, bool] = {}


def mark_heavy(items: list[pytest.Item]) -> None:
    """Add ``heavy`` to each test that runs a port and is not marked ``smoke``, and to the
    tests HEAVY_BY_NAME names; ``smoke`` to those SMOKE_BY_NAME names."""
    starters, known = _starters(), dict[int, bool]()
    for item in items:
        name = _name(item)
        if name in SMOKE_BY_NAME:
            item.add_marker(pytest.mark.smoke)
        kept = item.get_closest_marker("smoke") is not None
        if name in HEAVY_BY_NAME or (not kept and runs_a_port(item, starters, known)):
            item.add_marker(pytest.mark.heavy)
        runs = item.get_closest_marker("heavy") is None
        KEPT_BY_MODULE[item.path.name] = KEPT_BY_MODULE.get(item.path.name, False) or runs
