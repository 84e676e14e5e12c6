"""Measure the seam between the app and the game systems (issue 24): how wide the protocol is, and how much of
each ``rules/systems/<id>/system.py`` only re-types a signature to call a module function.

Run: .venv/bin/python bench/seam.py. It reads the source (an AST walk, nothing imported) and prints:

- the protocol's members, per class ``rules.base.GameSystem`` is built from (the core and each capability),
  split into required (no default: a body of ``...`` or an annotation without a value) and defaulted;
- per system: its lines, its methods, and its one-line forwarders: methods whose whole body (a docstring
  aside) is ``return f(...)`` for a function that is not the system's own (``self.x``), passing the method's
  arguments on in order ("strict"), or any arguments at all ("loose", e.g. one argument dropped);
- and its one-line methods of any kind (a body of one ``return``: a forwarder, a constant, a sum).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "rules" / "base.py"
SYSTEMS = ROOT / "rules" / "systems"
PROTOCOL = "GameSystem"


@dataclass(frozen=True)
class Members:
    name: str
    required: tuple[str, ...]
    defaulted: tuple[str, ...]


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of a function, its docstring left out."""
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def _is_stub(node: ast.FunctionDef) -> bool:
    body = _body(node)
    return not body or (
        len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    )  # ``...``


def class_members(cls: ast.ClassDef) -> Members:
    required: list[str] = []
    defaulted: list[str] = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            if node.name.startswith("_"):
                continue
            (required if _is_stub(node) else defaulted).append(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            (defaulted if node.value is not None else required).append(node.target.id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    defaulted.append(target.id)
    return Members(cls.name, tuple(required), tuple(defaulted))


def protocol_members(path: Path = BASE) -> list[Members]:
    """GameSystem and every class of rules/base.py it is built from, bases first."""
    classes = {node.name: node for node in ast.parse(path.read_text()).body if isinstance(node, ast.ClassDef)}
    order: list[str] = []

    def visit(name: str) -> None:
        if name not in classes or name in order:
            return
        for base in classes[name].bases:
            if isinstance(base, ast.Name):
                visit(base.id)
        order.append(name)

    visit(PROTOCOL)
    return [class_members(classes[name]) for name in order]


def _callee_is_own(func: ast.expr) -> bool:
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in ("self", "cls", "super")


def forwarder(node: ast.FunctionDef) -> str | None:
    """Whether this method only calls another function with its arguments: "strict", "loose" or None."""
    body = _body(node)
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    if _callee_is_own(call.func):
        return None
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    passed = [a.id if isinstance(a, ast.Name) else None for a in call.args]
    passed += [k.value.id if isinstance(k.value, ast.Name) and k.arg == k.value.id else None for k in call.keywords]
    return "strict" if passed == params else "loose"


@dataclass(frozen=True)
class SystemCount:
    name: str
    lines: int
    methods: int
    strict: int
    loose: int
    one_line: int
    forwarders: tuple[str, ...]


def system_counts(root: Path = SYSTEMS) -> list[SystemCount]:
    counts = []
    for path in sorted(root.glob("*/system.py")):
        tree = ast.parse(path.read_text())
        methods = [
            node
            for cls in tree.body
            if isinstance(cls, ast.ClassDef)
            for node in cls.body
            if isinstance(node, ast.FunctionDef)
        ]
        kinds = {node.name: forwarder(node) for node in methods}
        counts.append(
            SystemCount(
                path.parent.name,
                len(path.read_text().splitlines()),
                len(methods),
                sum(1 for k in kinds.values() if k == "strict"),
                sum(1 for k in kinds.values() if k == "loose"),
                sum(1 for node in methods if len(_body(node)) == 1 and isinstance(_body(node)[0], ast.Return)),
                tuple(name for name, kind in kinds.items() if kind),
            )
        )
    return counts


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    total_required = total_defaulted = 0
    print("protocol members (rules/base.py)")
    for members in protocol_members():
        total_required += len(members.required)
        total_defaulted += len(members.defaulted)
        print(f"  {members.name:<22} {len(members.required):>3} required {len(members.defaulted):>3} defaulted")
        if verbose:
            print(f"    required: {', '.join(members.required) or '-'}")
            print(f"    defaulted: {', '.join(members.defaulted) or '-'}")
    print(f"  {'total':<22} {total_required:>3} required {total_defaulted:>3} defaulted")
    print()
    print(f"{'system.py':<16} {'lines':>5} {'methods':>7} {'one-line':>8} {'forwarders':>10} (strict + loose)")
    totals = [0, 0, 0, 0, 0]
    for c in system_counts():
        forwarders = f"{c.strict + c.loose:>10} ({c.strict} + {c.loose})"
        print(f"{c.name:<16} {c.lines:>5} {c.methods:>7} {c.one_line:>8} {forwarders}")
        if verbose and c.forwarders:
            print(f"    {', '.join(c.forwarders)}")
        for i, value in enumerate((c.lines, c.methods, c.one_line, c.strict, c.loose)):
            totals[i] += value
    lines, methods, one_line, strict, loose = totals
    print(f"{'total':<16} {lines:>5} {methods:>7} {one_line:>8} {strict + loose:>10} ({strict} + {loose})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
