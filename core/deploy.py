"""The deploy stamp: what names this build of the code and templates, so something kept across processes (the
drawn regions in a shared cache, characters/region_cache.py) is never served by a build that draws it otherwise.

``DEPLOY_STAMP`` (the environment, e.g. the git commit the deploy checks out) names it outright. Unset, it is a
hash of every template Django's engines read and every Python file of the project's own packages, computed once
per process on first use (a few milliseconds): the same files give the same stamp in every process, a changed
template or module a new one."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from django.conf import settings
from django.template import engines

SUFFIXES = (".html", ".txt", ".py")
SKIPPED = {".venv", "node_modules", "tests", "staticfiles", "static", "__pycache__", "bench", "docs"}


def deploy_stamp() -> str:
    """``DEPLOY_STAMP`` if set, else the hash of the files this build draws with (see the module)."""
    return str(getattr(settings, "DEPLOY_STAMP", "") or "") or _files_stamp()


@cache
def _files_stamp() -> str:
    return files_stamp([*_template_dirs(), *_code_dirs()])


def files_stamp(roots: Iterable[Path]) -> str:
    """A short hash of the names and contents of the template and code files under these folders."""
    digest = hashlib.blake2b(digest_size=8)
    for root in roots:
        if not root.is_dir():
            continue
        paths = (p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file())
        for path in sorted(p for p in paths if not SKIPPED & set(p.relative_to(root).parts)):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def _template_dirs() -> list[Path]:
    found: list[Path] = []
    for engine in engines.all():
        found.extend(Path(d) for d in getattr(engine, "template_dirs", ()))
    return found


def _code_dirs() -> list[Path]:
    base = Path(settings.BASE_DIR)
    return [d for d in sorted(base.iterdir()) if d.name not in SKIPPED and (d / "__init__.py").is_file()]
