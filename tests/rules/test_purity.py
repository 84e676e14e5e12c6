"""rules/ stays pure Python: no Django and none of our Django apps (house style, "Layers")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = {"django", "characters", "campaigns", "config", "accounts"}


def forbidden_imports(source: str, filename: str = "<string>") -> list[str]:
    """Top-level packages from FORBIDDEN imported anywhere in the module, e.g. inside a function."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{filename}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    return found


def test_the_rules_package_is_where_we_think_it_is():
    assert (RULES / "dice.py").is_file()


@pytest.mark.parametrize("path", sorted(RULES.rglob("*.py")), ids=lambda p: str(p.relative_to(RULES.parent)))
def test_rules_modules_import_nothing_from_django_or_our_apps(path: Path):
    assert forbidden_imports(path.read_text(encoding="utf-8"), str(path)) == []


@pytest.mark.parametrize(
    "source",
    [
        "import django",
        "from django.db import models",
        "import django.utils.timezone as tz",
        "from characters.models import Character",
        "def f():\n    from campaigns import services",
        "import os, config.settings",
        "from accounts import models",
    ],
)
def test_the_purity_check_catches_django_imports(source: str):
    assert forbidden_imports(source)


@pytest.mark.parametrize("source", ["import djangofoo", "from rules.dice import Dist", "from . import dice"])
def test_the_purity_check_allows_other_imports(source: str):
    assert forbidden_imports(source) == []
