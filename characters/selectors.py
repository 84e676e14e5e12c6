"""Permission-scoped reads of characters."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Case, IntegerField, OuterRef, Q, QuerySet, Value, When

from characters import table
from characters.models import CatalogueItem, Character, Item, Roll
from core.prepared import Prepared
from live import journal


def characters_visible_to(user) -> QuerySet[Character]:
    """Your own characters, and every character at a table you sit at."""
    if not user.is_authenticated:
        return Character.objects.none()
    return Character.objects.filter(Q(owner=user) | Q(campaign__memberships__user=user)).distinct()


def characters_editable_by(user) -> QuerySet[Character]:
    """Your own characters, and every character in a campaign you GM."""
    if not user.is_authenticated:
        return Character.objects.none()
    return Character.objects.filter(Q(owner=user) | Q(campaign_id__in=table.tables_of(user, run=True)))


@dataclass(frozen=True)
class Viewer:
    """Who looks at a character, and what their seat lets them do with it (``character_for`` reads it)."""

    user_id: int
    role: str | None  # their seat at the character's table (table.GM_ROLES, or a player's), None for none
    is_owner: bool
    can_edit: bool  # the owner, or the table's GM
    is_gm: bool  # the table's GM; at no table, the owner runs their own game


@dataclass(frozen=True)
class Seat:
    """A character and the viewer it was read for: what the sheet's pages draw from, asked once."""

    character: Character
    viewer: Viewer
    head: int | None = None  # the table's journal head as the row was read (character_for's ``with_head``)
    locked: bool = False  # read under the write's lock, in the open transaction (character_for's ``lock``)


def character_for(user, pk: int, *, edit: bool = False, with_head: bool = False, lock: bool = False) -> Seat | None:
    """The character if ``user`` may see it (or, with ``edit``, change it), in one query: its campaign and
    owner come along, and the viewer's seat at its table says what they may do (``Seat.viewer``). ``with_head``:
    its table's journal head read in the same statement (``Seat.head``: what a page drawn from this row shows up
    to), instead of a query of its own before it.

    The same rules as characters_visible_to / characters_editable_by, asked of one row: a sheet and each of
    its live regions would otherwise spend three queries (visible, editable, GM) before drawing anything.

    ``lock``: the row locked for a write in the open transaction (``characters.locking``'s step 3 for one
    character), so the write reads it once: its seat and its lock in one statement.
    """
    if not user.is_authenticated:
        return None
    if lock:
        if with_head or not connection.in_atomic_block:
            raise ValueError("a locked seat is read inside the write's transaction, without the head")
        character = _CHARACTER_SEAT_LOCKED.first(user.pk, pk)
    else:
        character = (_CHARACTER_HEAD_SEAT if with_head else _CHARACTER_SEAT).first(user.pk, pk)
    if character is None:
        return None
    role = getattr(character, "seat_role")  # noqa: B009 - the annotation, read here only: the Viewer carries it on
    own, gm = character.owner_id == user.pk, role in table.GM_ROLES
    if not (own or role is not None):
        return None
    # At no table, the owner runs their own game.
    viewer = Viewer(user.pk, role, own, own or gm, gm if character.campaign_id else own)
    head = (getattr(character, "journal_head") or 0) if with_head else None  # noqa: B009 - the annotation
    return Seat(character, viewer, head, locked=lock) if viewer.can_edit or not edit else None


def _character_seat(user_id: int, pk: int, *, with_head: bool = False) -> QuerySet[Character]:
    rows = Character.objects.select_related("campaign", "owner").annotate(
        seat_role=table.seat_of(User(pk=user_id), OuterRef("campaign_id"))
    )
    if with_head:
        rows = rows.annotate(journal_head=journal.head_of(OuterRef("campaign_id")))
    return rows.filter(pk=pk)


# Compiled once per process: every sheet request and every write asks it (core.prepared).
_CHARACTER_SEAT = Prepared(_character_seat, inputs=2)
_CHARACTER_HEAD_SEAT = Prepared(partial(_character_seat, with_head=True), inputs=2)


def _character_seat_locked(user_id: int, pk: int) -> QuerySet[Character]:
    return _character_seat(user_id, pk).select_for_update(of=("self",))


_CHARACTER_SEAT_LOCKED = Prepared(_character_seat_locked, inputs=2)  # FOR UPDATE OF the character alone


def rolls_visible_to(user):
    """Public rolls of tables you sit at, your own rolls, and GM-only and blind rolls at tables you run (a blind
    roll's roller sees its line, never its result: characters.templatetags.lantern.roll_line)."""
    if not user.is_authenticated:
        return Roll.objects.none()
    member_of, gm_of = table.tables_of(user), table.tables_of(user, run=True)
    return Roll.objects.filter(
        Q(roller=user)
        | Q(visibility=Roll.Visibility.PUBLIC, campaign_id__in=member_of)
        | Q(visibility__in=(Roll.Visibility.GM, Roll.Visibility.BLIND), campaign_id__in=gm_of)
    )


def rolls_at_table(user, campaign_id: int, role: str | None) -> QuerySet[Roll]:
    """rolls_visible_to(user) at one table, when the viewer's seat there (``role``, None for none) is known
    already: the same rows, without the two membership subqueries."""
    if not user.is_authenticated:
        return Roll.objects.none()
    seen = Q(roller=user)
    if role is not None:
        seen |= Q(visibility=Roll.Visibility.PUBLIC)
    if role in table.GM_ROLES:
        seen |= Q(visibility__in=(Roll.Visibility.GM, Roll.Visibility.BLIND))
    return Roll.objects.filter(seen, campaign_id=campaign_id)


def catalogue_matching(system: str, text: str, limit: int) -> list[CatalogueItem]:
    """A system's equipment rows whose name or table holds every word typed, things to carry before
    services, names that start with the words before the others, then by table and name: one query, at most
    ``limit`` + 1 rows (the extra one says "more")."""
    rows = CatalogueItem.objects.filter(system=system, available=True)
    for word in text.split()[:5]:
        rows = rows.filter(Q(name__icontains=word) | Q(group__icontains=word))
    service_last = Case(When(kind=Item.Kind.SERVICE, then=Value(1)), default=Value(0), output_field=IntegerField())
    # "torch" finds the torch before "Common item (rope, torch…)": names that start with what was typed come first.
    typed = " ".join(text.split())
    named_first = Case(When(name__istartswith=typed, then=Value(0)), default=Value(1), output_field=IntegerField())
    return list(rows.order_by(service_last, named_first, "group", "name")[: limit + 1])
