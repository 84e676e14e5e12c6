"""The shape of the code: apps in layers, no import circles, systems reached only through the registry (issues 10
and 38). ``tools/layers.py`` prints the same graph as figures."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("accounts", "api", "campaigns", "characters", "config", "core", "discord", "live", "rules", "webhooks")
# Imports inside a function that dodge no circle: AppConfig.ready() connecting signals, optional
# platform modules, and migrations' helpers.
ALLOWED_LOCAL = {
    ("campaigns.apps", "campaigns.signals"),
    ("webhooks.apps", "webhooks.tasks"),
}

# The app order, lowest first (issue 38): an app imports only the apps before it. core: the helpers every app
# shares; rules: pure game mechanics (no Django); live: the journal and its streams (no app at all); then the apps;
# config: the URL root, settings, ASGI/WSGI, imported by nobody.
LAYERS = ("core", "rules", "live", "accounts", "characters", "campaigns", "webhooks", "discord", "api", "config")
RANK = {app: rank for rank, app in enumerate(LAYERS)}
# Imports that still point up the order: 5 module pairs (55 imports before issue 38), each to remove, none to
# add. The sheet's views call the fight's services (campaigns.session.hits: a PC's attack on an NPC, a revert
# or void that gives back the hits); the roll's audience reads campaigns' seats (issue 37's journal takes it);
# accounts asks which campaigns a person runs and whether they run one (the API tokens' page and scope).
UPWARD_STILL: set[tuple[str, str]] = set()
# Private names still imported from a sibling module (the views' shared helpers), each one to make public.
PRIVATE_STILL: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an import names (``rules.base.Sheet`` → ``rules.base``), or None if outside."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> list[tuple[str, bool]]:
    """(imported project module, inside a function?) for every import statement of ``module``."""
    tree = ast.parse(MODULES[module].read_text())
    out = []

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                # "from package import module" imports that module; "from module import name", the module
                names = [
                    f"{child.module}.{alias.name}" if f"{child.module}.{alias.name}" in MODULES else child.module
                    for alias in child.names
                ]
            for name in names:
                target = _resolve(name)
                if target and target != module:
                    out.append((target, inner))
            visit(child, inner)

    visit(tree, False)
    return out


GRAPH = {module: _imports(module) for module in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, _ in GRAPH[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            strong(module)
    return found


def _app(module: str) -> str:
    return module.split(".")[0]


def _private_imports() -> set[tuple[str, str]]:
    """(module, imported module.name) for every ``from <project module> import _name`` of another module."""
    found = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                target = _resolve(node.module)
                for alias in node.names:
                    name = alias.name
                    if target and target != module and name.startswith("_") and not name.startswith("__"):
                        found.add((module, f"{target}.{name}"))
    return found


def test_every_package_has_its_place_in_the_order():
    assert set(PACKAGES) == set(LAYERS)


def _type_hints_only() -> set[tuple[str, str]]:
    """(module, imported module) of the imports under ``if TYPE_CHECKING:``: names for type hints, never run."""
    found = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                for child in node.body:
                    if isinstance(child, ast.ImportFrom) and child.module and (target := _resolve(child.module)):
                        found.add((module, target))
    return found


def test_every_app_imports_only_the_apps_below_it():
    """Function-local imports count too; a type hint's import under TYPE_CHECKING does not (it never runs). The
    list of those still pointing up only shrinks: an import removed leaves it as well (so the test says when)."""
    edges = {(m, t) for m, targets in GRAPH.items() for t, _ in targets} - _type_hints_only()
    upward = {(m, t) for m, t in edges if RANK[_app(t)] > RANK[_app(m)]}
    assert sorted(upward - UPWARD_STILL) == [], "an import up the app order: pass data in, or a hook below"
    assert sorted(UPWARD_STILL - upward) == [], "gone: take it off UPWARD_STILL"


def test_no_app_imports_config():
    assert [(m, t) for m, edges in GRAPH.items() if _app(m) != "config" for t, _ in edges if _app(t) == "config"] == []


def test_core_and_live_import_no_app():
    """core: only Django and the standard library; live: core and rules at most."""
    assert [(m, t) for m, edges in GRAPH.items() if _app(m) == "core" for t, _ in edges if _app(t) != "core"] == []
    live = [(m, t) for m, edges in GRAPH.items() if _app(m) == "live" for t, _ in edges]
    assert [(m, t) for m, t in live if _app(t) not in {"core", "rules", "live"}] == []


def test_no_module_imports_a_private_name_of_another():
    """A step other modules use is a public name of its module (issue 38)."""
    found = _private_imports() - {(m, t) for m, t in _private_imports() if _app(m) == "rules"}
    assert sorted(found - PRIVATE_STILL) == [], "make the name public where it is used"
    assert sorted(PRIVATE_STILL - found) == [], "gone: take it off PRIVATE_STILL"


def test_no_all_lists_a_private_name():
    listed = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                listed += [(module, e.value) for e in getattr(node.value, "elts", []) if str(e.value).startswith("_")]
    assert listed == []


def test_the_project_finds_its_modules():
    assert {"rules.base", "live.events", "live.hub", "characters.services", "campaigns.views"} <= set(MODULES)


def test_no_module_imports_itself_round_a_circle():
    """Function-local imports count too: hiding an import in a function does not remove the circle."""
    assert _cycles() == []


def test_no_import_is_hidden_in_a_function_to_dodge_a_circle():
    local = sorted({(m, t) for m, edges in GRAPH.items() for t, inner in edges if inner} - ALLOWED_LOCAL)
    assert local == []


def test_the_live_app_imports_neither_characters_nor_campaigns():
    leaks = [(m, t) for m, edges in GRAPH.items() if m.startswith("live") for t, _ in edges]
    assert [(m, t) for m, t in leaks if t.split(".")[0] in {"characters", "campaigns"}] == []


def test_rules_import_no_app():
    """Only the pure error base below them (core.errors imports nothing)."""
    leaks = [(m, t) for m, edges in GRAPH.items() if m.startswith("rules") for t, _ in edges]
    assert [(m, t) for m, t in leaks if not t.startswith("rules") and t != "core.errors"] == []
    assert GRAPH["core.errors"] == []


def test_only_rules_import_a_system_module():
    """The app reaches a system through the registry (rules.SYSTEMS / system_for), never its module."""
    leaks = [
        (m, t)
        for m, edges in GRAPH.items()
        if not m.startswith("rules")
        for t, _ in edges
        if t.startswith("rules.systems")
    ]
    assert leaks == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("rules")))
def test_the_app_asks_no_system_for_an_optional_member(module):
    """Every member the app uses is in the GameSystem protocol (with a default), so no getattr on a system."""
    tree = ast.parse(MODULES[module].read_text())
    suspects = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"getattr", "hasattr"}
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in {"rules", "system", "SYSTEM", "game_system"}
    ]
    assert suspects == []
