"""The one order in which every write takes its locks, so that no two writes ever wait on each other.

A write that locks more than one row takes them in this order, each step only after the ones above it:

1. **the roller** (``lock_roller``): a write that may store a roll first takes a transaction-scoped advisory
   lock keyed on the user who rolls, so the rolls-per-minute cap counts exactly when one account's rolls
   arrive at once (PostgreSQL; SQLite's IMMEDIATE transactions let one writer in at a time already);
2. **the campaign row** (``lock_campaign``), FOR NO KEY UPDATE: a roll may still insert a row pointing at
   the campaign meanwhile (that takes a key-share lock, which NO KEY UPDATE does not block);
3. **characters**, in ascending id (``lock_characters``), all of them at once where the write knows them;
4. **every other row** (offers, NPCs, roll requests and their answers, items, hirelings) after the campaign
   or the character it belongs to, whose lock queues the writes to it; several at once in id order.

Two rules keep the order whole:

- A lock the transaction already holds may be taken again at any point: it waits for nothing.
- A lock taken only if it is free (SKIP LOCKED) waits for nothing either, so it may come out of order: a
  character write works the table's conditions out under the campaign's lock only if nobody holds it
  (``campaigns.conditions.conditions_changed``). A roll therefore never waits for its campaign: the clock
  (campaign, then characters) and a roll (characters only) cannot wait on each other.

Who takes what (tests/campaigns/test_lock_order.py races the pairs):

- a roll (``character_roll``): roller; its character and those its inputs name, in one statement by id;
- a roll request answered (``request_answer``): roller; the roll's characters; then the answer; then, for a
  group check, its request (the last answer decides the group's outcome once);
- a group check's answer skipped: the answer, then its request; a group check closed: its request alone;
- an offer applied or declined: its character, then the offer (the character's deletion holds the character
  and then deletes its offers);
- the clock, a new round, the end of a fight, an NPC's damage or roll, a fight started: the GM as roller
  (they log the GM's rolls), the campaign, then every character at the table by id (``lock_table``), NPCs by id;
- a membership change: the campaign, then the leaving player's characters by id;
- every other character write (HP, items, hirelings, details, revert, delete): its one character, then its rows
  (the sheet's HP change locks it as it reads the viewer's seat, one statement: ``commands.editable(lock=True)``).
- the party's stash (``campaigns.stash``): a move between a sheet and the stash, or its revert, takes the
  character, then the stash's row (step 4: it queues every stash write), then the stash's items; a coin split
  (or its revert) the characters by id, then the stash; the GM's loot the stash alone.

A write that will follow a pipeline (lock, rules, whole-sheet check, version, history, announce) calls these
steps in turn: ``lock_roller``, the campaign's row (``campaigns.services.lock_campaign_row``: characters sit
below campaigns), ``lock_characters``/``lock_table``, then its own rows.

A row gone by the time its lock is taken is ``Gone``: the locked read decides, so a write racing a delete
answers like one at a row that never existed (a 404), not with a crash.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import QuerySet, prefetch_related_objects

from characters.models import Character
from core.prepared import Prepared
from rules.errors import Refusal


class Gone(Refusal):
    """The row a write was for no longer exists (deleted meanwhile): answered like a row that never did."""

    status = 404


def lock_roller(user) -> None:
    """Step 1: queue this user's rolls one behind another until the transaction ends (PostgreSQL).

    The single-key advisory lock space is the rollers' (presence uses the two-key form: another space)."""
    if user is None or user.pk is None or connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [user.pk])


def lock_characters(ids: Iterable[int]) -> dict[int, Character]:
    """Step 3: these characters (with their campaign, not locked), in ascending id; missing ids are absent."""
    wanted = sorted(set(ids))
    if len(wanted) == 1:  # most rolls name their own character alone: the once-compiled lock (issue 39)
        one = _LOCK_CHARACTER.first(wanted[0])
        return {} if one is None else {one.pk: one}
    rows = Character.objects.select_for_update(of=("self",)).select_related("campaign")
    return {c.pk: c for c in rows.filter(pk__in=wanted).order_by("pk")}


def lock_table(campaign_id: int) -> list[Character]:
    """Step 3 for a write at the whole table (the clock, a new round, the end of a fight), once the campaign is
    locked: every character at it, locked in id order. The rows are read again once locked, so one that left
    the table meanwhile is not among them."""
    rows = Character.objects.select_for_update(of=("self",)).select_related("campaign")
    return list(rows.filter(campaign_id=campaign_id).order_by("pk"))


def lock_character(character_id: int, *, with_rows: bool = False) -> Character:
    """Step 3 for one character (``Gone`` if it no longer exists). ``with_rows``: its items and hirelings read
    along (prefetched)."""
    character = _LOCK_CHARACTER.first(character_id)
    if character is None:
        raise Gone("That character is gone.")
    if with_rows:
        prefetch_related_objects([character], "items", "hirelings")
    return character


def _lock_one(pk: int) -> QuerySet[Character]:
    return Character.objects.select_for_update(of=("self",)).select_related("campaign").filter(pk=pk)


_LOCK_CHARACTER = Prepared(_lock_one, inputs=1)  # every character write locks through it: compiled once
