"""The party's stash under races (issue 41): two players taking the same item at once, a take against the GM's
removal, a take against a coin split. One gets the item, the other a sentence; nothing is half-saved; no deadlock.

Each race has a must-fail control: the same moves without the stash's lock (or with the locks out of the app's
order), under the same harness, which PostgreSQL shows duplicating the item or deadlocking. The controls need
PostgreSQL: SQLite's IMMEDIATE transactions let one writer in at a time.
"""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from campaigns import stash
from campaigns.models import StashEntry, StashItem
from characters import locking
from characters.models import Item
from rules import base as rules_base
from tests.conftest import make_character, make_table, make_user
from tests.races import postgresql_only, together

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 10


@pytest.fixture
def party():
    gm, one, two = make_user("stashgm"), make_user("stashone"), make_user("stashtwo")
    campaign = make_table("fell-late", gm, one, two, name="Hoard")
    first = make_character(one, campaign, system="fell-late", name="Zed", seed=1)
    second = make_character(two, campaign, system="fell-late", name="Abe", seed=2)
    return campaign, gm, (one, first), (two, second)


def _loot(campaign, gm, name: str) -> StashItem:
    item = rules_base.Item(name=name, kind="treasure", slots=0, quantity=1)
    stash.stash_add_item(campaign_id=campaign.pk, item=item, by=gm)
    return StashItem.objects.get(stash__campaign=campaign, name=name)


def _holders(name: str) -> int:
    return Item.objects.filter(name=name).count()


def test_two_players_taking_the_same_item_at_once_one_gets_it(party):
    campaign, gm, (one, first), (two, second) = party
    for n in range(ROUNDS):
        row = _loot(campaign, gm, f"Idol {n}")
        errors = together(
            lambda: stash.stash_take(campaign_id=campaign.pk, character_id=first.pk, stash_item_id=row.pk, by=one),  # noqa: B023
            lambda: stash.stash_take(campaign_id=campaign.pk, character_id=second.pk, stash_item_id=row.pk, by=two),  # noqa: B023
        )
        assert errors == []
        assert _holders(f"Idol {n}") == 1
        assert not StashItem.objects.filter(pk=row.pk).exists()
        # the stash's history has one take per item, and the loser's sheet no entry
        assert StashEntry.objects.filter(what__endswith=f"took Idol {n} from the stash").count() == 1


def test_a_take_against_the_gms_removal_one_of_them_happens(party):
    campaign, gm, (one, first), _ = party
    for n in range(ROUNDS):
        row = _loot(campaign, gm, f"Crown {n}")
        errors = together(
            lambda: stash.stash_take(campaign_id=campaign.pk, character_id=first.pk, stash_item_id=row.pk, by=one),  # noqa: B023
            lambda: stash.stash_remove_item(campaign_id=campaign.pk, stash_item_id=row.pk, by=gm),  # noqa: B023
        )
        assert errors == []
        took = _holders(f"Crown {n}")
        removed = StashEntry.objects.filter(what=f"Removed Crown {n} from the stash").count()
        assert took + removed == 1, (took, removed)
        assert not StashItem.objects.filter(pk=row.pk).exists()


def test_a_take_and_a_coin_split_never_deadlock(party):
    campaign, gm, (one, first), (two, second) = party
    stash.stash_add_coins(campaign_id=campaign.pk, amount=ROUNDS * 2, by=gm)
    errors: list[BaseException] = []
    for n in range(ROUNDS):
        row = _loot(campaign, gm, f"Ring {n}")
        errors += together(
            lambda: stash.stash_take(campaign_id=campaign.pk, character_id=second.pk, stash_item_id=row.pk, by=two),  # noqa: B023
            lambda: stash.coins_split(campaign_id=campaign.pk, character_ids=[first.pk, second.pk], amount=2, by=gm),
        )
    assert errors == []
    campaign.stash.refresh_from_db()
    assert campaign.stash.coins == 0


# --- must-fail controls -------------------------------------------------------------------------------------------


@postgresql_only
def test_taking_without_the_stash_lock_hands_one_item_to_both_control(party):
    """The naive take: read the row, then write both sides. Both read it before either deletes it."""
    campaign, gm, (one, first), (two, second) = party
    duplicated = 0
    for n in range(3):
        row = _loot(campaign, gm, f"Gem {n}")
        both_read = threading.Barrier(2)

        @transaction.atomic
        def naive_take(character, row=row, both_read=both_read):
            seen = StashItem.objects.filter(pk=row.pk).first()
            both_read.wait()
            if seen is not None:
                StashItem.objects.filter(pk=seen.pk).delete()
                Item.objects.create(character=character, name=seen.name, kind=seen.kind, slots=0, quantity=1)

        assert together(lambda: naive_take(first), lambda: naive_take(second)) == []  # noqa: B023
        duplicated += _holders(f"Gem {n}") == 2
    assert duplicated == 3


@postgresql_only
def test_locking_the_stash_before_the_character_deadlocks_with_a_split_control(party):
    """The other order: a take that locked the stash first, then its character, against a split (characters by id,
    then the stash)."""
    campaign, gm, (one, first), (two, second) = party
    stash.stash_add_coins(campaign_id=campaign.pk, amount=10, by=gm)
    errors: list[BaseException] = []
    for _ in range(3):
        both_hold_one = threading.Barrier(2)

        @transaction.atomic
        def old_take(both_hold_one=both_hold_one):
            stash.lock_stash(campaign.pk)
            both_hold_one.wait()
            locking.lock_character(second.pk)

        @transaction.atomic
        def split(both_hold_one=both_hold_one):
            locking.lock_characters([first.pk, second.pk])
            both_hold_one.wait()
            stash.lock_stash(campaign.pk)

        errors += together(old_take, split)
    assert sum("deadlock" in str(error).lower() for error in errors) == 3, errors


@postgresql_only
def test_a_take_and_a_removal_without_the_stash_lock_both_happen_control(party):
    """The naive take and the naive removal: each reads the row, then writes its side. Both happen: the item is on
    the sheet and the GM's removal is logged."""
    campaign, gm, (one, first), _ = party
    both = 0
    for n in range(3):
        row = _loot(campaign, gm, f"Orb {n}")
        both_read = threading.Barrier(2)

        @transaction.atomic
        def naive_take(row=row, both_read=both_read):
            seen = StashItem.objects.filter(pk=row.pk).first()
            both_read.wait()
            if seen is not None:
                StashItem.objects.filter(pk=seen.pk).delete()
                Item.objects.create(character=first, name=seen.name, kind=seen.kind, slots=0, quantity=1)

        @transaction.atomic
        def naive_remove(row=row, both_read=both_read):
            seen = StashItem.objects.filter(pk=row.pk).first()
            both_read.wait()
            if seen is not None:
                StashItem.objects.filter(pk=seen.pk).delete()
                StashEntry.objects.create(campaign=campaign, by=gm, what=f"Removed {seen.name} from the stash")

        assert together(naive_take, naive_remove) == []
        took = _holders(f"Orb {n}")
        removed = StashEntry.objects.filter(what=f"Removed Orb {n} from the stash").count()
        both += took + removed == 2
    assert both == 3
