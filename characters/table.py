"""What a character write must tell the table the character sits at, and what a sheet asks of it (issue 38).

characters sits below campaigns and imports nothing of it: the table's app registers what it does when a sheet
changes and who sits where (``register``, from its ``AppConfig.ready``), and characters calls the functions
below. With no table registered (characters on its own), a write tells nobody and nobody is a GM.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import CharField, Value

from characters.models import Character
from core.errors import Refusal

GM = "gm"  # the owner's seat at a table (campaigns.models.Membership.Role.GM)
# The seats that run a table: the owner's and a co-GM's (campaigns.models.GM_ROLES).
GM_ROLES = ("gm", "cogm")


class Table(Protocol):
    """What the table does when one of its sheets changes; both run inside the write's transaction."""

    def sheet_written(
        self, campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
    ) -> None:
        """A sheet at this table was written; ``before``/``after`` as its history keeps them (a light lit, put out,
        taken or dropped changes the table's conditions)."""

    def party_changed(self, campaign_id: int | None) -> None:
        """A character came to this table, left it or was deleted: the party, and what it carries, changed."""

    def is_gm(self, user: User | AnonymousUser, campaign_id: int | None) -> bool:
        """Whether ``user`` runs this table."""

    def gm_ids(self, campaign_id: int) -> Any:
        """The ids of the users who run this table, as a query a filter can take (``roller_id__in=``)."""

    def fight_npcs(self, campaign_id: int) -> Any:
        """The NPCs of the table's running fight still standing, as a roll form lists them: (pk, name) pairs."""

    def campaigns_of(self, user: User) -> Any:
        """The campaigns ``user`` sits at, as GM or player (a query of the campaign rows)."""

    def tables_of(self, user: User, *, run: bool = False) -> Any:
        """The ids of the campaigns ``user`` sits at (``run``: runs), as a subquery (``campaign_id__in=``)."""

    def seat_of(self, user: User, campaign_id: Any) -> Any:
        """The role of ``user`` at the table ``campaign_id`` (an ``OuterRef`` too), as a subquery; none: None."""

    # The table's fight, as a sheet's roll meets it: an attack on one of its NPCs, and what a void or a revert
    # gives back to the NPCs a roll hit.

    def target_params(self, character: Character, procedure: str, npc_id: int, params: Mapping[str, Any]) -> Any:
        """A roll's inputs against an NPC of the running fight (its armour counts); a Refusal if it can't be."""

    def attack_npc(self, *, npc_id: int, **roll: Any) -> Any:
        """A PC's attack roll on an NPC of the running fight (``roll``: character_roll's inputs); the Written."""

    def void_roll(self, *, roll_id: int, by: User, reason: str) -> tuple[Any, list[str]]:
        """A roll voided, and a sentence per NPC of a fight given back what it took."""

    def revert_change(self, **change: Any) -> tuple[Any, list[str]]:
        """A history entry reverted (change_revert's inputs), and a sentence per NPC given back what it took."""

    def void_preview(self, roll: Any) -> list[str]:
        """What voiding this roll would give back to NPCs, a sentence each."""

    def stash_move(self, *, kind: str, character_id: int, by: User, payload: Mapping[str, Any]) -> Any:
        """A move between the sheet and its table's stash kept offline ("stash-take", "stash-put"): the sheet's
        Written; a Refusal (409: the item moved meanwhile) otherwise."""


class _NoTable:
    def sheet_written(
        self, campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
    ) -> None:
        return None

    def party_changed(self, campaign_id: int | None) -> None:
        return None

    def is_gm(self, user: User | AnonymousUser, campaign_id: int | None) -> bool:
        return False

    def gm_ids(self, campaign_id: int) -> Any:
        return []

    def fight_npcs(self, campaign_id: int) -> Any:
        return []

    def campaigns_of(self, user: User) -> Any:
        return Character.objects.none()  # an empty query: no table, no seat at one

    def tables_of(self, user: User, *, run: bool = False) -> Any:
        return []

    def seat_of(self, user: User, campaign_id: Any) -> Any:
        return Value(None, output_field=CharField())

    def target_params(self, character: Character, procedure: str, npc_id: int, params: Mapping[str, Any]) -> Any:
        raise Refusal("That roll can't target an NPC: there is no table's fight.")

    def attack_npc(self, *, npc_id: int, **roll: Any) -> Any:
        raise Refusal("That roll can't target an NPC: there is no table's fight.")

    def void_roll(self, *, roll_id: int, by: User, reason: str) -> tuple[Any, list[str]]:
        raise Refusal("Voiding needs the table's app (campaigns), which orders its locks.")

    def revert_change(self, **change: Any) -> tuple[Any, list[str]]:
        raise Refusal("Reverting needs the table's app (campaigns), which orders its locks.")

    def void_preview(self, roll: Any) -> list[str]:
        return []

    def stash_move(self, *, kind: str, character_id: int, by: User, payload: Mapping[str, Any]) -> Any:
        raise Refusal("A stash needs the table's app (campaigns).")


_registered: list[Table] = [_NoTable()]


def registered() -> Table:
    """The table characters tells and asks now."""
    return _registered[0]


def register(table: Table) -> None:
    """The table's app says what it does (once, at startup); a second registration replaces the first."""
    _registered[0] = table


def sheet_written(campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> None:
    _registered[0].sheet_written(campaign_id, before, after)


def party_changed(campaign_id: int | None) -> None:
    _registered[0].party_changed(campaign_id)


def is_gm(user: User | AnonymousUser, campaign_id: int | None) -> bool:
    return _registered[0].is_gm(user, campaign_id)


def gm_ids(campaign_id: int) -> Any:
    return _registered[0].gm_ids(campaign_id)


def fight_npcs(campaign_id: int) -> Any:
    return _registered[0].fight_npcs(campaign_id)


def tables_of(user: User, *, run: bool = False) -> Any:
    return _registered[0].tables_of(user, run=run)


def seat_of(user: User, campaign_id: Any) -> Any:
    return _registered[0].seat_of(user, campaign_id)


def campaigns_of(user: User) -> Any:
    return _registered[0].campaigns_of(user)


def target_params(character: Character, procedure: str, npc_id: int, params: Mapping[str, Any]) -> Any:
    return _registered[0].target_params(character, procedure, npc_id, params)


def attack_npc(*, npc_id: int, **roll: Any) -> Any:
    return _registered[0].attack_npc(npc_id=npc_id, **roll)


def void_roll(*, roll_id: int, by: User, reason: str) -> tuple[Any, list[str]]:
    return _registered[0].void_roll(roll_id=roll_id, by=by, reason=reason)


def revert_change(**change: Any) -> tuple[Any, list[str]]:
    return _registered[0].revert_change(**change)


def void_preview(roll: Any) -> list[str]:
    return _registered[0].void_preview(roll)


def stash_move(*, kind: str, character_id: int, by: User, payload: Mapping[str, Any]) -> Any:
    return _registered[0].stash_move(kind=kind, character_id=character_id, by=by, payload=payload)
