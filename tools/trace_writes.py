"""Traces one write through each of its doors and says what it cost (issue 38): how many times the sheet's state
was validated (``validate_state``), the whole sheet checked (``validate_sheet``, ``check_sheet``,
``checked_sheet``), and which of the project's functions and files the request entered.

Run from the repository root (SQLite in memory by default; DATABASE_URL picks PostgreSQL, test_ database):

    .venv/bin/python tools/trace_writes.py            # the figures
    .venv/bin/python tools/trace_writes.py --files    # and the project files each write entered

Each write is made once first (untraced) so the figures are those of a warm process, not of its first imports.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# This checkout's modules only: an editable install's finder would fill in a module missing here from its own.
sys.meta_path[:] = [finder for finder in sys.meta_path if "Editable" not in getattr(finder, "__name__", "")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

COUNTED = ("validate_state", "validate_sheet")


def put(owner: Any, name: str, value: Any) -> None:
    """setattr, past a frozen dataclass's guard (the game systems are frozen)."""
    if isinstance(owner, type) or type(owner).__name__ == "module":
        setattr(owner, name, value)
    else:
        object.__setattr__(owner, name, value)


@contextmanager
def counting(systems: dict[str, Any]) -> Iterator[Counter]:
    """Every system's ``validate_state`` and ``validate_sheet``, and the app's two sheet checks, counted."""
    from characters.models import Character
    from rules import base

    counts: Counter = Counter()
    wrapped: list[tuple[Any, str, bool, Any]] = []

    def wrap(owner: Any, name: str) -> None:
        original, own = getattr(owner, name), name in vars(owner)
        wrapped.append((owner, name, own, vars(owner).get(name)))

        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return original(*args, **kwargs)

        put(owner, name, counted)

    for system in systems.values():
        for name in COUNTED:
            wrap(system, name)
    wrap(base, "check_sheet")
    wrap(Character, "checked_sheet")
    try:
        yield counts
    finally:
        for owner, name, own, before in reversed(wrapped):
            if own:
                put(owner, name, before)
            else:  # an instance's own wrapper: its class's method shows again
                object.__delattr__(owner, name)


@contextmanager
def tracing() -> Iterator[dict[str, Counter]]:
    """The project's functions entered (by file and name) while the block runs; the virtualenv's left out."""
    entered: dict[str, Counter] = {"functions": Counter(), "files": Counter()}
    root, venv = str(ROOT), str(ROOT / ".venv")

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        path = frame.f_code.co_filename
        if not path.startswith(root) or path.startswith(venv) or path == __file__ or "/site-packages/" in path:
            return
        where = os.path.relpath(path, root)
        entered["files"][where] += 1
        entered["functions"][f"{where}:{frame.f_code.co_name}"] += 1

    sys.setprofile(profile)
    try:
        yield entered
    finally:
        sys.setprofile(None)


def main() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.test.utils import setup_databases, setup_test_environment, teardown_databases

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        figures = trace_all()
    finally:
        teardown_databases(databases, verbosity=0)
    labels = (*COUNTED, "check_sheet", "checked_sheet")
    print(f"{'write':40} status {' '.join(labels)} functions(calls) files")
    for name, figure in figures.items():
        counts = " ".join(f"{figure['counts'].get(label, 0):>{len(label)}}" for label in labels)
        entered = f"{figure['functions']}({figure['calls']})"
        print(f"{name:40} {figure['status']:>6} {counts} {entered:>16} {len(figure['files']):>5}")
    if "--files" in sys.argv:
        for name, figure in figures.items():
            print(f"\n{name}:")
            for path, calls in sorted(figure["files"].items()):
                print(f"  {path}: {calls}")


def trace_all() -> dict[str, dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.tokens import token_create
    from campaigns.models import Campaign, Membership
    from characters.services import character_create
    from rules import SYSTEMS

    users = get_user_model().objects
    gm, alice = users.create_user("gm", password="x"), users.create_user("alice", password="x")
    table = Campaign.objects.create(name="The Sunken Vault", system="fell-draft")
    Membership.objects.create(campaign=table, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=table, user=alice)
    page = Client()
    page.force_login(alice)
    htmx: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}
    secret = token_create(user=alice, name="trace", scope="play").secret
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    api = Client()

    def as_json(body: dict) -> dict[str, Any]:
        return {"data": json.dumps(body), "content_type": "application/json", **bearer}

    # Each write gets a fresh character (the same dice made it): what one write did never changes the next one's.
    writes: dict[str, Callable[[int], Any]] = {
        "page roll (Test, BOD)": lambda pk: page.post(f"/characters/{pk}/roll/test/", {"test-ability": "BOD"}, **htmx),
        "page roll that writes (Take harm 1)": lambda pk: page.post(
            f"/characters/{pk}/roll/take_harm/", {"take_harm-amount": "1"}, **htmx
        ),
        "page HP adjust (-1)": lambda pk: page.post(f"/characters/{pk}/adjust/", {"key": "hp", "delta": "-1"}, **htmx),
        "API roll (Test, BOD)": lambda pk: api.post(
            f"/api/characters/{pk}/rolls/test", **as_json({"params": {"ability": "BOD"}})
        ),
        "API roll that writes (Take harm 1)": lambda pk: api.post(
            f"/api/characters/{pk}/rolls/take_harm", **as_json({"params": {"amount": 1}})
        ),
        "API HP adjust (-1)": lambda pk: api.post(
            f"/api/characters/{pk}/tracks", **as_json({"key": "hp", "delta": -1})
        ),
        "page add item (Rope)": lambda pk: page.post(
            f"/characters/{pk}/items/", {"name": "Rope", "kind": "gear", "slots": "1", "quantity": "1"}, **htmx
        ),
        "offline HP adjust (-1)": lambda pk: page.post(
            f"/characters/{pk}/offline/",
            json.dumps({"key": f"trace-{pk:04d}", "version": 1, "kind": "track", "track": "hp", "delta": -1}),
            content_type="application/json",
        ),
    }

    def fresh() -> int:
        made, _ = character_create(
            owner=alice, system="fell-draft", choices={"name": "Wren"}, campaign=table, rng=random.Random(7)
        )
        page.get(made.get_absolute_url())  # the sheet's caches warm, as for a player who has it open
        return made.pk

    figures: dict[str, dict[str, Any]] = {}
    for name, write in writes.items():
        write(fresh())  # warm: imports, templates and caches of a running process
        pk = fresh()
        with counting(SYSTEMS) as counts, tracing() as entered:
            response = write(pk)
        figures[name] = {
            "status": response.status_code,
            "counts": dict(counts),
            "functions": len(entered["functions"]),
            "calls": sum(entered["functions"].values()),
            "files": dict(entered["files"]),
        }
    return figures


if __name__ == "__main__":
    main()
