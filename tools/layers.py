"""Figures of the app layering (issue 38): the app-level import graph, its cycles, imports that point up the order,
private names imported across modules, private names in ``__all__`` and untyped ``by`` parameters.

Run from the repository root: ``.venv/bin/python tools/layers.py`` (``--list`` prints every upward import and every
private name imported across modules). Every import counts, function-local ones included: hiding an import in a
function does not change who depends on whom.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The app order, lowest first: an app may import only apps before it (tests/test_architecture.py holds it).
ORDER = ("core", "rules", "live", "accounts", "characters", "campaigns", "webhooks", "api", "config")
RANK = {app: rank for rank, app in enumerate(ORDER)}


def modules() -> dict[str, Path]:
    found = {}
    for app in ORDER:
        for path in sorted((ROOT / app).rglob("*.py")) if (ROOT / app).is_dir() else []:
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = modules()


def resolve(name: str) -> str | None:
    """The project module an import names (``rules.base.Sheet`` → ``rules.base``), or None if outside."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def absolute(module: str, node: ast.ImportFrom) -> str:
    """The absolute module of a ``from … import`` (relative ones resolved against ``module``)."""
    if node.level == 0:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def typing_lines(tree: ast.AST) -> set[int]:
    """The lines inside ``if TYPE_CHECKING:`` blocks: imports there are for type hints, not run."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                found.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return found


def imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported project module, imported name or None, line) for every import of ``module``."""
    out = []
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if target := resolve(alias.name):
                    out.append((target, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = absolute(module, node)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in MODULES:
                    out.append((submodule, None, node.lineno))
                elif target := resolve(base):
                    out.append((target, alias.name, node.lineno))
    return [(target, name, line) for target, name, line in out if target != module]


def app_of(module: str) -> str:
    return module.split(".")[0]


def app_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one app (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            component.append(v)
            if len(component) > 1:
                found.append(sorted(component, key=RANK.__getitem__))

    for app in ORDER:
        if app not in index:
            strong(app)
    return found


def private_in_all() -> list[tuple[str, str]]:
    found = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                found += [
                    (module, e.value)
                    for e in node.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.startswith("_")
                ]
    return found


def by_parameters() -> tuple[list[str], list[str]]:
    """(typed, untyped) functions with a ``by`` parameter, as ``module.function``."""
    typed, untyped = [], []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                for argument in arguments:
                    if argument.arg == "by":
                        (typed if argument.annotation is not None else untyped).append(f"{module}.{node.name}")
    return typed, untyped


def main() -> None:
    listing = "--list" in sys.argv
    graph: dict[str, set[str]] = defaultdict(set)
    pairs: Counter[tuple[str, str]] = Counter()
    upward: list[str] = []
    typing_only: list[str] = []
    private: list[str] = []
    for module in MODULES:
        hints = typing_lines(ast.parse(MODULES[module].read_text()))
        for target, name, line in imports(module):
            source_app, target_app = app_of(module), app_of(target)
            if source_app != target_app:
                graph[source_app].add(target_app)
                pairs[source_app, target_app] += 1
                if RANK[target_app] > RANK[source_app]:
                    found = f"{module}:{line} -> {target}" + (f".{name}" if name else "")
                    (typing_only if line in hints else upward).append(found)
            if name and name.startswith("_") and not name.startswith("__"):
                private.append(f"{module}:{line} -> {target}.{name}")

    print("App order (lowest first): " + " < ".join(ORDER))
    print(f"Modules scanned: {len(MODULES)}")
    print("App-level import graph (imports per pair):")
    for app in ORDER:
        edges = ", ".join(f"{t} {pairs[app, t]}" for t in sorted(graph.get(app, ()), key=RANK.__getitem__))
        print(f"  {app} -> {edges or '(nothing)'}")
    cycles = app_cycles(graph)
    print(f"App-level cycles: {len(cycles)}" + "".join(f"\n  {' <-> '.join(c)}" for c in cycles))
    by_pair = Counter((app_of(u.split(":")[0]), app_of(u.split(" -> ")[1])) for u in upward)
    print(f"Upward imports: {len(upward)}" + "".join(f"\n  {s} -> {t}: {n}" for (s, t), n in sorted(by_pair.items())))
    print(f"Upward imports for type hints only (under TYPE_CHECKING, not run): {len(typing_only)}")
    for label, chosen in (
        ("apps", [p for p in private if not p.startswith("rules")]),
        ("rules", [p for p in private if p.startswith("rules")]),
    ):
        names = {p.split(" -> ")[1] for p in chosen}
        print(f"Private names imported across modules, {label}: {len(chosen)} imports of {len(names)} names")
    in_all = private_in_all()
    for label, chosen_all in (
        ("apps", [(m, n) for m, n in in_all if not m.startswith("rules")]),
        ("rules", [(m, n) for m, n in in_all if m.startswith("rules")]),
    ):
        holders = len({m for m, _ in chosen_all})
        print(f"Private names listed in __all__, {label}: {len(chosen_all)} (in {holders} modules)")
    typed, untyped = by_parameters()
    print(f"`by` parameters: {len(typed) + len(untyped)}, untyped {len(untyped)}")
    if listing:
        print("\nUpward imports:\n  " + "\n  ".join(upward))
        print("\nUpward imports for type hints only:\n  " + "\n  ".join(typing_only))
        print("\nPrivate names imported across modules:\n  " + "\n  ".join(private))
        print("\nPrivate names in __all__:\n  " + "\n  ".join(f"{m}: {n}" for m, n in in_all))
        print("\nUntyped `by`:\n  " + "\n  ".join(untyped))


if __name__ == "__main__":
    main()
