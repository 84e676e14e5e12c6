"""A Playwright driver that cannot start is one sentence naming the package, not an error per test (issue 23).

On a bare Debian with only chromium installed, Playwright's bundled node lacks libatomic.so.1 and every
browser test errored. These fake the driver (PLAYWRIGHT_NODEJS_PATH is Playwright's own way to name the
node it runs) with a script failing as the dynamic loader does; no browser starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM, check_driver, driver_problem

ROOT = Path(__file__).resolve().parents[2]
LOADER_ERROR = (
    "/venv/lib/python3.11/site-packages/playwright/driver/node: error while loading shared libraries: "
    "libatomic.so.1: cannot open shared object file: No such file or directory"
)
SENTENCE = "Playwright's driver cannot start without libatomic.so.1: install libatomic1 (apt-get install libatomic1)."


def _fake_node(tmp_path: Path, message: str = LOADER_ERROR, code: int = 127) -> Path:
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit {code}\n")
    node.chmod(0o755)
    return node


def test_a_missing_library_names_its_debian_package():
    assert driver_problem(127, LOADER_ERROR) == SENTENCE
    other = driver_problem(127, LOADER_ERROR.replace("libatomic.so.1", "libfoo.so.3"))
    assert other == "Playwright's driver cannot start without libfoo.so.3: install the Debian package that provides it."


def test_any_other_failure_says_its_first_line_and_a_driver_that_runs_is_no_problem():
    crashed = driver_problem(1, "\nSegmentation fault\nmore\n")
    assert crashed == "Playwright's driver did not start (exit 1): Segmentation fault"
    assert driver_problem(0, "Version 1.55.0") is None


def test_the_check_runs_the_driver(tmp_path):
    assert check_driver([str(_fake_node(tmp_path)), "cli.js"]) == SENTENCE
    assert check_driver([str(tmp_path / "absent")]).startswith("Playwright's driver did not start: ")


def _browser_tests(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "DATABASE_URL", "PYTEST_ADDOPTS"}}
    env |= {"PLAYWRIGHT_NODEJS_PATH": str(_fake_node(tmp_path)), "SQLITE_TEST_NAME": str(tmp_path / "test.sqlite3")}
    if ci:
        env["CI"] = "true"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests/browser/test_header.py"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="the chromium check comes first")
def test_locally_every_browser_test_is_skipped_with_the_one_sentence(tmp_path):
    result = _browser_tests(tmp_path, ci=False)
    assert result.returncode == 0, result.stdout
    assert " error" not in result.stdout.splitlines()[-1], result.stdout
    assert result.stdout.count(SENTENCE) == 1, result.stdout  # -ra: "SKIPPED [n] …: <sentence>"


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="the chromium check comes first")
def test_in_ci_the_run_stops_once_with_the_sentence(tmp_path):
    result = _browser_tests(tmp_path, ci=True)
    assert result.returncode == 1, result.stdout
    assert result.stdout.count(SENTENCE) == 1, result.stdout
    assert " error" not in result.stdout.splitlines()[-1], result.stdout
