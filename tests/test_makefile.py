"""The Makefile on a bare machine (issue 23): a half-made venv is made afresh, not kept broken.

Debian's python3 without the python3-venv package makes the venv's folders and then fails at ensurepip,
leaving a .venv with no pip; every later `make run` then said "No module named pip" until `make clean`.
These run make on a copy of the Makefile in a temporary folder, with such a venv made for real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The interpreter this venv was made from: it has venv and ensurepip.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _debian_python_without_venv(folder: Path) -> Path:
    """A python3 as Debian's is without python3-venv: the venv's folders, no pip, a failure."""
    script = folder / "python3"
    script.write_text(
        "#!/bin/sh\n"
        f'[ "$1 $2" = "-m venv" ] || exec "{BASE_PYTHON}" "$@"\n'
        f'"{BASE_PYTHON}" -m venv --without-pip "$3" || exit 1\n'
        'echo "The virtual environment was not created successfully because ensurepip is not available." >&2\n'
        "exit 1\n"
    )
    script.chmod(0o755)
    return script


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, project / name)
    # What the failed first `make run` left: a real venv with no pip in it.
    subprocess.run([BASE_PYTHON, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    assert subprocess.run([project / ".venv/bin/python", "-m", "pip", "--version"], capture_output=True).returncode
    return project


def _make(project: Path, target: str, python: Path | str) -> subprocess.CompletedProcess:
    # No package index: the pip upgrade after a good venv settles for the pip ensurepip brought.
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("MAKEFLAGS", None)
    return subprocess.run(
        ["make", "-C", str(project), target, f"PYTHON={python}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_without_python3_venv_every_run_names_the_package_and_leaves_no_broken_venv(tmp_path):
    project = _project(tmp_path)
    python = _debian_python_without_venv(tmp_path)
    for _ in range(2):  # the first failed run and the one after it say the same true thing
        result = _make(project, ".venv/.installed-run", python)
        assert result.returncode != 0
        assert "install python3-venv (apt-get install python3-venv)" in result.stderr, result.stderr
        assert "No module named pip" not in result.stdout + result.stderr
        assert not (project / ".venv").exists()


def test_a_venv_without_pip_is_made_afresh(tmp_path):
    project = _project(tmp_path)
    result = _make(project, ".venv/bin/pip", BASE_PYTHON)
    assert result.returncode == 0, result.stdout + result.stderr
    check = subprocess.run([project / ".venv/bin/python", "-m", "pip", "--version"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
