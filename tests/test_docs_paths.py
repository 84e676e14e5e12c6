"""What README.md and docs/ name exists (issue 35, item 22): every file path in backticks, every `make` target and
every `manage.py` command in their code. A doc that names a file since renamed, or a command nobody wrote, fails.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FILE_ENDINGS = (".py", ".md", ".html", ".js", ".css", ".toml", ".json", ".txt", ".sh", ".svg", ".png")
MADE_BY_COMMANDS = {"staticfiles/"}  # collectstatic's output, named where the docs say how to make it


def _code(text: str) -> list[str]:
    """The code of a Markdown text: its fenced blocks and its inline spans."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    return blocks + re.findall(r"`([^`\n]+)`", prose)


def _spans(text: str) -> list[str]:
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    return re.findall(r"`([^`\n]+)`", prose)


def _is_path(span: str) -> bool:
    if " " in span or span.startswith(("/", "-", "http", "$")) or any(c in span for c in "<>…*:=@#{}()"):
        return False  # a URL path, an option, an address, a placeholder or a pattern
    return span.endswith("/") or span.endswith(FILE_ENDINGS)


@cache
def _repository_files() -> tuple[str, ...]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return tuple(listed.splitlines())


def _exists(path: str, doc: Path) -> bool:
    """At the project's root or beside the doc; a bare or partial path (a README table's row under its folder,
    `fell_draft/settings.py`) where some file in the repository ends with it."""
    if path in MADE_BY_COMMANDS or (ROOT / path).exists() or (doc.parent / path).exists():
        return True
    if path.endswith("/"):
        return any(f"/{path}" in f"/{name}" for name in _repository_files())
    return any(f"/{name}".endswith(f"/{path}") for name in _repository_files())


def _named_paths(doc: Path) -> list[str]:
    return sorted({span.split("::")[0] for span in _spans(doc.read_text()) if _is_path(span.split("::")[0])})


def _make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), flags=re.M))


def test_the_docs_are_found_and_name_things():
    assert ROOT / "docs" / "production.md" in DOCS
    assert "config/wsgi.py" in _named_paths(ROOT / "docs" / "production.md")
    assert {"run", "test", "bench"} <= _make_targets()


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_path_a_doc_names_exists(doc):
    missing = [path for path in _named_paths(doc) if not _exists(path, doc)]
    assert missing == [], f"{doc.name} names files that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_make_target_a_doc_names_exists(doc):
    # `make X` as a command: at the start of a line or after ; && |, behind any VAR=value settings (not "make a
    # new one" inside a quoted sentence).
    command = r"(?:^|[;&|]\s*)(?:[A-Z_]+=\S+\s+)*make ([a-z][\w-]*)"
    named = {target for code in _code(doc.read_text()) for target in re.findall(command, code, re.M)}
    assert named - _make_targets() == set(), f"{doc.name} names make targets the Makefile lacks"


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_manage_py_command_a_doc_names_exists(doc):
    named = {command for code in _code(doc.read_text()) for command in re.findall(r"manage\.py (\w+)", code)}
    assert named - set(get_commands()) == set(), f"{doc.name} names manage.py commands nobody wrote"


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_git_archive_extracts_into_a_folder_made_first(doc):
    """`tar -x -C DIR` fails when DIR does not exist: the command line makes it first."""
    for code in _code(doc.read_text()):
        for line in code.splitlines():
            for folder in re.findall(r"git archive \S+ \| tar -x -C (\S+)", line):
                assert f"mkdir -p {folder} " in line.split("git archive")[0], f"{doc.name}: {line}"


def test_the_service_workers_length_is_as_its_view_says():
    said = re.search(r"static/js/sw\.js, about (\d+) lines", (ROOT / "accounts" / "pwa.py").read_text())
    assert said, "accounts/pwa.py says how long the service worker is"
    lines = len((ROOT / "static" / "js" / "sw.js").read_text().splitlines())
    assert abs(lines - int(said[1])) <= 15, (lines, said[1])


def test_production_says_autovacuum_stays_on_with_the_measured_cost():
    text = " ".join((ROOT / "docs" / "production.md").read_text().split())
    assert "Autovacuum stays on" in text
    assert "100,000 rolls" in text and "2.8 s" in text and "after `ANALYZE`, **75 ms**" in text
