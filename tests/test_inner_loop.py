"""The inner loop's rule (tests/inner_loop.py) stays true as tests are added: no module
drops out of the loop, every test named from there exists, and runs are found however a
test reaches them."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import inner_loop
import pytest
from support import fairvec

from fairvec.cli import main

TESTS = Path(__file__).resolve().parent


def _heavy_as_a_whole(module: Path) -> bool:
    """Whether the module says ``pytestmark = pytest.mark.heavy`` (or lists it there)."""
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            return "attr='heavy'" in ast.dump(node.value)
    return False


def test_every_module_keeps_a_test_in_the_inner_loop(request: pytest.FixtureRequest) -> None:
    """Each module has a test the inner loop runs (a ``smoke`` one if its every other test
    runs a port), unless the module is heavy as a whole. Read off this session's collection
    before any -m or -k, so it holds in the inner loop and in the test command alike."""
    named = [Path(argument.split("::")[0]).resolve() for argument in request.config.args]
    if named != [TESTS]:
        pytest.skip("needs the whole tests folder collected (no file or test named)")
    kept = {name for name, runs in inner_loop.KEPT_BY_MODULE.items() if runs}
    dropped = [module for module in sorted(TESTS.glob("test_*.py")) if module.name not in kept]
    lost = [module.name for module in dropped if not _heavy_as_a_whole(module)]
    assert lost == [], "modules the inner loop no longer runs a test of"


def _defined_tests(module: Path) -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize(
    "name", sorted(inner_loop.HEAVY_BY_NAME | inner_loop.SMOKE_BY_NAME), ids=lambda n: n[6:]
)
def test_each_test_named_in_the_rule_exists(name: str) -> None:
    """A renamed test must not slip into the loop (or out of it) unnoticed."""
    path, function = name.split("::")
    module = TESTS.parent / path
    assert module.is_file() and function in _defined_tests(module), f"no test {name}"


# --- what counts as a run: a test's own code, its helpers, imports inside it ---


def _through_a_helper() -> None:
    fairvec("run", "--bundled", "python")


def _runs_in_process() -> None:
    main(["run", "--bundled", "python"])


def _lists_in_process() -> None:
    main(["list"])


def _imports_and_runs() -> None:
    from support import run_port  # (neither name is one of this module's)

    run_port(["./port"], ["battle.move"])


def _a_session(vectors: Path) -> None:
    from support import session_run

    session_run(vectors, ("battle.move",))


def _computes() -> None:
    assert sum(range(10)) == 45


def _named_directly() -> None:
    fairvec("list")


def _a_program() -> None:
    subprocess.run(["true"], check=True)


# Held in tuples, which the rule does not follow: the tests below only read these functions
# (a test naming them itself would be sorted as one that runs a port).
RUNS = (
    _named_directly,
    _a_program,
    _through_a_helper,
    _imports_and_runs,
    _runs_in_process,
    _a_session,
)
NOT_RUNS = (_lists_in_process, _computes)


def test_runs_are_found_directly_through_helpers_and_imports_inside() -> None:
    assert [inner_loop.calls_a_port(function) for function in RUNS] == [True] * len(RUNS)


def test_in_process_commands_that_start_no_port_and_plain_code_are_not_runs() -> None:
    assert [inner_loop.calls_a_port(function) for function in NOT_RUNS] == [False] * 2
