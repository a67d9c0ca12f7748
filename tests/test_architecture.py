"""The arrows go one way (docs/maintaining.md, "The dependency rule"), checked by reading
every module's imports, function-level ones included, never by importing anything.

The modules are found by walking the package as it is on disk (the rooms are symbolic
links inside it), so a module added, moved or renamed is checked without editing this
file. The rule names packages, not files: the reference (``fairvec.reference``), the
runner (``fairvec.runner``), and the callers that may use the reference. The callers
that are plain modules, the ``fairvec accumulated`` and ``fairvec stream`` commands, are
found through the command table of ``fairvec/cli.py``, so renaming a module does not
break the rule.

- R1 the reference imports only itself and the foundation it reads specs with
  (``FOUNDATION``), and nothing it reaches imports the runner or a caller;
- R2 the runner imports neither the reference nor anything that reaches it, nor a caller;
- R3 only the callers import the reference: the generator, the fuzzer, the analysis,
  the bundled Python adapter (the reference behind the protocol) and the ``fairvec
  accumulated`` and ``fairvec stream`` commands.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "fairvec"
REFERENCE, RUNNER = "fairvec.reference", "fairvec.runner"
# What the reference may import outside itself: the errors, and the spec reader it takes
# each algorithm's input schema from (and, through it, the bounded file and JSON reading).
FOUNDATION = ("fairvec.errors", "fairvec.specs")
# The callers of the reference, by package; the `fairvec accumulated` command's module is
# added from the command table (accumulated_command()).
CALLER_PACKAGES = ("fairvec.generate", "fairvec.fuzz", "fairvec.analysis", "fairvec.adapters")
SKIPPED_FOLDERS = {"node_modules", "__pycache__"}
ROOMS = {"reference", "runner", "spec", "vectors"}  # top-level folders linked into fairvec/


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    path: Path
    line: int
    target: str  # the fairvec module imported

    def where(self) -> str:
        return f"{self.path.relative_to(PACKAGE.parent)}:{self.line}"


def module_files() -> dict[str, Path]:
    """Every module of the package, by dotted name: the rooms are followed through their
    symbolic links, the Node adapter's dependencies are not Python."""
    found: dict[str, Path] = {}
    for folder, subfolders, files in os.walk(PACKAGE, followlinks=True):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder) / name
                parts = ["fairvec", *path.relative_to(PACKAGE).with_suffix("").parts]
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


@cache
def modules() -> dict[str, Path]:
    return module_files()


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def known(name: str) -> str | None:
    """The longest module of the package that ``name`` is or lies in (an imported name may
    be a function: ``from fairvec.reference import compute``)."""
    while name:
        if name in modules():
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path) -> Iterator[Import]:
    """Every fairvec import in the file, at any depth: ``import``, ``from ... import``
    (relative ones resolved), and ``importlib.import_module`` of a literal or an f-string
    starting with a literal."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            # `from fairvec import reference` imports the module fairvec.reference
            targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            targets = [name if known(name) == name else base for name in targets]
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            literal = _literal_prefix(node.args[0])
            if literal:
                targets = [literal.rstrip(".")]
        line = node.lineno if isinstance(node, (ast.stmt, ast.expr)) else 0
        for target in targets:
            resolved = known(target) if target.split(".")[0] == "fairvec" else None
            if resolved is not None and resolved != module:
                yield Import(module, path, line, resolved)


def _is_import_module(function: ast.expr) -> bool:
    return (isinstance(function, ast.Attribute) and function.attr == "import_module") or (
        isinstance(function, ast.Name) and function.id == "import_module"
    )


def _literal_prefix(argument: ast.expr) -> str:
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    if isinstance(argument, ast.JoinedStr) and argument.values:
        first = argument.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return ""


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(found for name, path in modules().items() for found in imports_of(name, path))


# The commands whose own module computes with the reference (found from the command table,
# so renaming a module does not break the rule): `fairvec accumulated full`, `fairvec stream`.
REFERENCE_COMMANDS = ("accumulated", "stream")


def accumulated_command(command: str = "accumulated") -> list[str]:
    """The modules ``fairvec COMMAND`` is built from: what the function the command table
    of fairvec/cli.py names for it imports."""
    tree = ast.parse((PACKAGE / "cli.py").read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    adder = ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == command:
                    assert isinstance(value, ast.Name), "the command table maps names to functions"
                    adder = value.id
    assert adder in functions, f"fairvec/cli.py's command table has no {command!r} command"
    found = [
        target
        for node in ast.walk(functions[adder])
        if isinstance(node, ast.ImportFrom) and node.module
        if (target := known(node.module)) is not None
    ]
    assert found, f"fairvec/cli.py: {adder} imports no fairvec module"
    return found


def callers() -> list[str]:
    commands = [module for name in REFERENCE_COMMANDS for module in accumulated_command(name)]
    return [*CALLER_PACKAGES, *commands]


def is_caller(module: str) -> bool:
    return any(inside(module, caller) for caller in callers())


def chain(start: Import, forbidden: str) -> list[Import] | None:
    """The import path from ``start`` to a module inside ``forbidden``, if any (breadth
    first, so the shortest)."""
    by_module: dict[str, list[Import]] = {}
    for found in all_imports():
        by_module.setdefault(found.module, []).append(found)
    paths: list[list[Import]] = [[start]]
    seen = {start.module}
    while paths:
        path = paths.pop(0)
        last = path[-1].target
        if inside(last, forbidden):
            return path
        if last in seen:
            continue
        seen.add(last)
        paths.extend([*path, following] for following in by_module.get(last, []))
    return None


def described(path: list[Import]) -> str:
    head = f"{path[0].where()}: {path[0].module} imports {path[0].target}"
    rest = "".join(f", which imports {step.target} ({step.where()})" for step in path[1:])
    return head + rest


# ---- the tree is what the rule is about ----


def test_the_modules_are_found_through_the_room_links() -> None:
    names = modules()
    for room in (REFERENCE, RUNNER, "fairvec.adapters.python"):
        assert room in names, f"{room} not found under {PACKAGE}"
    assert any(inside(name, REFERENCE) and name != REFERENCE for name in names)
    assert any(inside(name, RUNNER) and name != RUNNER for name in names)
    for name in (*FOUNDATION, *CALLER_PACKAGES):  # fairvec.adapters has no __init__.py
        assert any(inside(module, name) for module in names), (
            f"the rule names {name}, which is not in the tree: rename it here"
        )


def test_function_level_and_dynamic_imports_are_read() -> None:
    """The reading itself: the generator imports a family by an f-string, the command line
    imports each command inside a function."""
    targets = {(found.module, found.target) for found in all_imports()}
    assert ("fairvec.generate", REFERENCE) in targets
    assert ("fairvec.cli", "fairvec.runner.cli") in targets
    assert accumulated_command()


# ---- the rule ----


def violations_r1() -> list[str]:
    """R1: the reference imports only itself and the foundation, and what it reaches
    imports neither the runner nor a caller."""
    found = []
    for step in all_imports():
        if not inside(step.module, REFERENCE) or inside(step.target, REFERENCE):
            continue
        if not any(inside(step.target, allowed) for allowed in FOUNDATION):
            found.append(f"{step.where()}: {step.module} imports {step.target} (the reference "
                         f"may import only itself and {', '.join(FOUNDATION)})")  # fmt: skip
            continue
        for forbidden in (RUNNER, *callers()):
            path = chain(step, forbidden)
            if path is not None:
                found.append(described(path) + " (the reference reaches " + forbidden + ")")
    return found


def violations_r2() -> list[str]:
    """R2: nothing in the runner imports the reference or a caller, directly or through
    another module."""
    found = []
    for step in all_imports():
        if not inside(step.module, RUNNER) or inside(step.target, RUNNER):
            continue
        for forbidden in (REFERENCE, *callers()):
            path = chain(step, forbidden)
            if path is not None:
                found.append(described(path) + f" (the runner never imports {forbidden})")
                break
    return found


def violations_r3() -> list[str]:
    """R3: only the callers import the reference."""
    return [
        f"{step.where()}: {step.module} imports {step.target} (only "
        f"{', '.join(callers())} may import the reference)"
        for step in all_imports()
        if inside(step.target, REFERENCE)
        and not inside(step.module, REFERENCE)
        and not is_caller(step.module)
    ]


@pytest.mark.parametrize(
    "rule", [violations_r1, violations_r2, violations_r3], ids=["R1-reference", "R2-runner",
                                                                 "R3-callers"]
)  # fmt: skip
def test_the_arrows_go_one_way(rule: Callable[[], list[str]]) -> None:
    found = rule()
    assert not found, "forbidden imports:\n" + "\n".join(found)


def test_the_maintainers_map_names_every_module() -> None:
    """docs/maintaining.md's module map lists each module by its path inside its room
    (`regular_files.py`, `release/verify.py`, `_input_checks.py`): a module added or
    renamed without its line in the map fails here, naming it."""
    page = (PACKAGE.parent / "docs" / "maintaining.md").read_text(encoding="utf-8")
    missing = []
    for name, path in modules().items():
        parts = name.split(".")[1:]
        if not parts or parts[0] in ("adapters",):  # the bundled adapters: their own docs
            continue
        inside_room = path.relative_to(PACKAGE / parts[0]) if len(parts) > 1 else None
        if parts[0] in ROOMS and inside_room is not None:
            listed = inside_room.as_posix()
        else:
            listed = path.relative_to(PACKAGE).as_posix()
        if f"`{listed}`" not in page and not (
            listed.endswith("__init__.py") and f"`{Path(listed).parent.as_posix()}/`" in page
        ):
            missing.append(listed)
    assert not missing, f"docs/maintaining.md does not list: {', '.join(missing)}"


def import_cycles() -> list[list[str]]:
    """Every cycle of fairvec modules importing each other, at module or function level
    (a function-level import still ties the two modules together). Imports of a package
    (``fairvec.reference``: its ``__init__`` re-exporting its parts) count as the package."""
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for found in all_imports():
        graph[found.module].add(found.target)
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    # a package and its own parts import each other by design (__init__ re-exports them)
    return [c for c in cycles if not all(m.startswith(c[0] + ".") or m == c[0] for m in c)]


def test_no_module_imports_itself_in_a_cycle() -> None:
    cycles = import_cycles()
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
