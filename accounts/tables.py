"""What an account asks of the tables it sits at (its API tokens: which campaigns it runs), answered by the table's
app: accounts sits below campaigns and imports nothing of it; campaigns registers the answers at startup
(campaigns.signals). With none registered, an account runs no table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User


def _runs_none(user: User) -> list[tuple[int, str]]:
    return []


# (campaign id, name) of each campaign a user runs, by name.
_run_by: list[Callable[[User], Any]] = [_runs_none]


def register(run_by: Callable[[User], Any]) -> None:
    _run_by[0] = run_by


def campaigns_run_by(user: User) -> list[tuple[int, str]]:
    """The campaigns ``user`` runs as GM, as (id, name) pairs in order of name."""
    return list(_run_by[0](user))


def runs(user: User, campaign_id: int) -> bool:
    """Whether ``user`` runs the campaign ``campaign_id`` now."""
    return any(pk == campaign_id for pk, _ in campaigns_run_by(user))
