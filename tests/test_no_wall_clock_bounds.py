"""No test bounds wall-clock time (issue 35, item 19): on a busy machine any such bound fails some runs.

Speed is measured in ``bench/``. A test may wait for something with a generous deadline that only stops a hang
(a loop's condition, a ``wait(timeout=…)``), but never asserts how long something took, and a Playwright
expectation uses the default timeout set in tests/browser/conftest.py rather than a short one of its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CLOCKS = {("time", "monotonic"), ("time", "perf_counter"), ("time", "time"), ("timeit", "timeit")}
CLOCKS |= {("timeit", "repeat"), ("time", "monotonic_ns"), ("time", "perf_counter_ns"), ("loop", "time")}
ARITHMETIC = {"min", "max", "sum", "abs", "round", "float", "int"}


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT.parent)) if path.is_relative_to(ROOT.parent) else path.name


def _reads_clock(node: ast.AST | None, tainted: set[str]) -> bool:
    """Whether ``node`` is a clock reading or arithmetic on one (a span), directly or through a name that holds
    one. A reading passed on as data (a timestamp in a query) is not a span."""
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        return (node.func.value.id, node.func.attr) in CLOCKS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ARITHMETIC:
        return any(_reads_clock(arg, tainted) for arg in node.args)
    if isinstance(node, ast.BinOp):
        return _reads_clock(node.left, tainted) or _reads_clock(node.right, tainted)
    if isinstance(node, ast.UnaryOp):
        return _reads_clock(node.operand, tainted)
    if isinstance(node, ast.Compare):
        return any(_reads_clock(side, tainted) for side in (node.left, *node.comparators))
    if isinstance(node, ast.BoolOp):
        return any(_reads_clock(value, tainted) for value in node.values)
    return False


def _clock_names(tree: ast.AST) -> set[str]:
    """Every name assigned a clock reading or something computed from one, followed until nothing changes."""
    tainted: set[str] = set()
    while True:
        before = len(tainted)
        for node in ast.walk(tree):
            pairs: list[tuple[ast.expr, ast.expr | None]] = []
            if isinstance(node, ast.Assign):
                pairs = [(target, node.value) for target in node.targets]
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                pairs = [(node.target, node.value)]
            while pairs:
                target, value = pairs.pop()
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):  # a, b = x, y: each its own
                    pairs += list(zip(target.elts, value.elts, strict=False))
                elif isinstance(target, ast.Name) and _reads_clock(value, tainted):
                    tainted.add(target.id)
        if len(tainted) == before:
            return tainted


def _clock_assertions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    tainted = _clock_names(tree)
    # A helper that returns a span makes its callers' results spans too (``_stop(server) < 5``).
    spans = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and any(isinstance(r, ast.Return) and r.value and _reads_clock(r.value, tainted) for r in ast.walk(node))
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        compares = [c for c in ast.walk(node.test) if isinstance(c, ast.Compare)]  # also inside and/or
        calls_span = any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in spans
            for compare in compares
            for c in ast.walk(compare)
        )
        if calls_span or any(_reads_clock(compare, tainted) for compare in compares):
            found.append(f"{_name(path)}:{node.lineno}")
    return found


def _short_expectations(path: Path) -> list[str]:
    """``expect(…).to_…(…, timeout=…)``: a time limit on how soon the page shows something."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.startswith(("to_", "not_to_"))
            and any(keyword.arg == "timeout" for keyword in node.keywords)
        ):
            found.append(f"{_name(path)}:{node.lineno}")
    return found


TEST_FILES = sorted(ROOT.rglob("*.py"))


def test_the_check_sees_the_test_files():
    assert len(TEST_FILES) > 50
    assert Path(__file__) in TEST_FILES


def test_the_check_finds_an_elapsed_time_assertion_however_it_is_spelt(tmp_path):
    sample = tmp_path / "test_sample.py"
    # The sample of what the check refuses lives in a data file, not in a test's own source.
    sample.write_text((Path(__file__).parent / "data" / "clock_sample.py.txt").read_text())
    assert [where.rpartition(":")[2] for where in _clock_assertions(sample)] == ["9", "10", "11"]
    assert [where.rpartition(":")[2] for where in _short_expectations(sample)] == ["18"]


def test_no_test_asserts_how_long_something_took():
    found = [where for path in TEST_FILES if path != Path(__file__) for where in _clock_assertions(path)]
    assert found == [], "elapsed-time assertions (measure speed in bench/): " + ", ".join(found)


def test_no_browser_expectation_sets_a_short_timeout_of_its_own():
    found = [where for path in TEST_FILES if path != Path(__file__) for where in _short_expectations(path)]
    assert found == [], "timeouts used as assertions (the default in tests/browser/conftest.py): " + ", ".join(found)
