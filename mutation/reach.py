"""Which algorithms can run a line of a reference module: the judge's scope for one
mutant (docs/mutation.md, "Judging only what a mutant can reach").

A mutant of a function that no code of algorithm A calls cannot change A's answers, so
its verdict is the same whether A's vectors are run or not; leaving them out is what
makes a survivor cheap (stake's accumulated stage alone is 110 s on the loaded machine,
and a mutant of a wheel table reaches no algorithm that has accumulated vectors).

The reach is computed over the module's top-level statements: a statement reaches the
algorithm it registers (``@algorithm("family.name", ...)``) and every algorithm reached
by a statement naming what it defines, transitively. It over-approximates (a local
variable named like a top-level one counts as a use), never under: a function that
writes into a top-level object (``TABLE[key] = ...``, ``TABLE.append(...)``) reaches the
algorithms of every reader of that object, and a module with ``global`` or ``nonlocal``
statements, or calling ``globals()``, ``vars()`` or ``setattr``, gets no scope at all
(the judge then runs the whole family, as before). Uses from other modules are outside
the model, as they are outside the family's vectors the judge ran before.
"""

from __future__ import annotations

import ast

# Methods that change the object they are called on: a function calling one on a
# top-level name writes into it.
MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "sort",
        "reverse",
        "popitem",
        "__setitem__",
        "__delitem__",
    }
)
# Calls that reach names by text: no static reach is sound in a module using them.
DYNAMIC_CALLS = frozenset({"globals", "vars", "setattr", "delattr", "exec", "eval"})

Statement = tuple[int, int, list[str]]


def statement_reach(source: str) -> list[Statement] | None:
    """Every top-level statement as (first line, last line, the algorithm ids that can run
    its code, sorted); None when the module defeats the analysis (see the module doc)."""
    tree = ast.parse(source)
    if _dynamic(tree):
        return None
    statements = tree.body
    defines = [_defined_names(statement) for statement in statements]
    uses = [_used_names(statement) for statement in statements]
    writes = [_written_names(statement) for statement in statements]
    definer = {name: index for index, names in enumerate(defines) for name in names}
    # edges: from a statement to the statements whose code can run it or read its effects
    users: list[set[int]] = [set() for _ in statements]
    for index, names in enumerate(uses):
        for name in names & definer.keys():
            users[definer[name]].add(index)
    for index, names in enumerate(writes):
        for name in names & definer.keys():
            users[index].add(definer[name])  # the writer reaches the object's readers
    registered = [_registered(statement) for statement in statements]
    reached = [
        {algorithm for seen in _closure(index, users) for algorithm in registered[seen]}
        for index in range(len(statements))
    ]
    return [
        (_first_line(statement), statement.end_lineno or statement.lineno, sorted(reached[index]))
        for index, statement in enumerate(statements)
    ]


def _first_line(statement: ast.stmt) -> int:
    """Where the statement starts, its decorators included (``lineno`` is the def's)."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _closure(start: int, users: list[set[int]]) -> set[int]:
    seen = {start}
    pending = [start]
    while pending:
        for user in users[pending.pop()] - seen:
            seen.add(user)
            pending.append(user)
    return seen


def _dynamic(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return True
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in DYNAMIC_CALLS:
            return True
    return False


def _defined_names(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {statement.name}
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    return {
        node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)
    }


def _used_names(statement: ast.stmt) -> set[str]:
    return {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)}


def _written_names(statement: ast.stmt) -> set[str]:
    """Top-level-looking names this statement writes into (a subscript or attribute
    stored to, a mutating method called on it)."""
    written = set()
    for node in ast.walk(statement):
        base: ast.expr | None = None
        if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            base = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATING_METHODS
        ):
            base = node.func.value
        while isinstance(base, ast.Subscript | ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            written.add(base.id)
    return written


def _registered(statement: ast.stmt) -> set[str]:
    """The ids a function registers with ``@algorithm("family.name", ...)``."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    return {
        decorator.args[0].value
        for decorator in statement.decorator_list
        if isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Name)
        and decorator.func.id == "algorithm"
        and decorator.args
        and isinstance(decorator.args[0], ast.Constant)
        and isinstance(decorator.args[0].value, str)
    }
