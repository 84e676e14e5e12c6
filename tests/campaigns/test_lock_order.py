"""The app's one lock order (issue 23, item 7; characters/locking.py): pairs of writers that lock more than one
row, raced with real threads, never deadlock; the roll cap holds exactly under bursts (item 13b).

Each pair has a must-fail control: the old order under the same harness, which PostgreSQL catches as a deadlock
(or, for the cap, more rolls than it allows). The controls need PostgreSQL: SQLite's IMMEDIATE transactions let
one writer in at a time. The figures below were taken on PostgreSQL against 4480856.
"""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from campaigns import session
from campaigns.models import Npc
from campaigns.services import lock_campaign_row
from characters import locking
from characters import services as character_services
from characters.models import Character, OfferedChange, Roll
from tests.conftest import make_character, make_table, make_user
from tests.races import postgresql_only, together

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 20


def _deadlocks(errors: list[BaseException]) -> int:
    return sum("deadlock" in str(error).lower() for error in errors)


@pytest.fixture
def table():
    """A table whose first character by id sorts last by name: a roll locks Zed then Abe, a walk by name
    the other way round."""
    gm, owner = make_user("ordergm"), make_user("orderplayer")
    campaign = make_table("fell-late", gm, owner, name="Order")
    zed = make_character(owner, campaign, system="fell-late", name="Zed", seed=1)
    abe = make_character(owner, campaign, system="fell-late", name="Abe", seed=2)
    make_character(owner, campaign, system="fell-late", name="Mo", seed=3)
    assert zed.pk < abe.pk
    return campaign, gm, owner, zed, abe


def _attack(zed, abe, by, seed=0):
    """Zed attacks Abe (the roll locks both, by id)."""
    return lambda: character_services.character_roll(
        character_id=zed.pk,
        procedure="attack",
        params={"target": abe.pk},
        by=by,
        rng=random.Random(seed),
    )


def test_the_clock_and_a_roll_naming_a_character_never_deadlock(table):
    """Before: 14 of 20 rounds deadlocked on PostgreSQL (the clock walked the sheets by name)."""
    campaign, gm, owner, zed, abe = table
    errors: list[BaseException] = []
    for n in range(ROUNDS):
        clock = lambda: session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=1, by=gm)  # noqa: E731
        errors += together(_attack(zed, abe, owner, n), clock)
    assert errors == []
    campaign.refresh_from_db()
    assert campaign.game_minutes == 10 * ROUNDS


def test_next_round_and_a_roll_naming_a_character_never_deadlock(table):
    """Before: 10 of 20 rounds deadlocked on PostgreSQL."""
    campaign, gm, owner, zed, abe = table
    session.encounter_start(campaign_id=campaign.pk, name="Brawl", by=gm)
    errors: list[BaseException] = []
    for n in range(ROUNDS):
        errors += together(
            _attack(zed, abe, owner, n), lambda: session.encounter_next_round(campaign_id=campaign.pk, by=gm)
        )
    assert errors == []
    campaign.refresh_from_db()
    assert campaign.round == ROUNDS + 1


def test_ending_the_fight_and_a_roll_naming_a_character_never_deadlock(table):
    """Before: 4 of 10 rounds deadlocked on PostgreSQL."""
    campaign, gm, owner, zed, abe = table
    errors: list[BaseException] = []
    for n in range(ROUNDS // 2):
        session.encounter_start(campaign_id=campaign.pk, name=f"Brawl {n}", by=gm)
        errors += together(_attack(zed, abe, owner, n), lambda: session.encounter_end(campaign_id=campaign.pk, by=gm))
    assert errors == []
    assert not campaign.encounters.filter(active=True).exists()


@postgresql_only
def test_walking_the_table_by_name_deadlocks_with_a_roll_control(table):
    """The old order: the clock (and a new round, the end of a fight) locked each sheet in name order, a roll
    locks its characters in id order."""
    campaign, gm, owner, zed, abe = table
    both_hold_one = threading.Barrier(2)

    @transaction.atomic
    def old_clock():
        lock_campaign_row(campaign.pk)
        by_name = list(Character.objects.filter(campaign=campaign).order_by("name", "pk"))
        for n, character in enumerate(by_name):
            locking.lock_characters([character.pk])
            if n == 0:  # Abe
                both_hold_one.wait()

    @transaction.atomic
    def roll():
        locking.lock_characters([zed.pk])
        both_hold_one.wait()
        locking.lock_characters([zed.pk, abe.pk])

    errors: list[BaseException] = []
    for _ in range(3):
        errors += together(old_clock, roll)
    assert _deadlocks(errors) == 3, errors


# --- an offer answered while its character is deleted ------------------------------------------------------------


def _offered(n: int):
    """A player's character attacks another player's: the harm is offered to its owner."""
    gm, owner, other = make_user(f"offergm{n}"), make_user(f"offerer{n}"), make_user(f"offered{n}")
    campaign = make_table("fell-late", gm, owner, other, name=f"Offers {n}")
    attacker = make_character(owner, campaign, system="fell-late", name="Zed", seed=1)
    target = make_character(other, campaign, system="fell-late", name="Abe", seed=2)
    for seed in range(20):
        character_services.character_roll(
            character_id=attacker.pk,
            procedure="attack",
            params={"target": target.pk},
            by=owner,
            rng=random.Random(seed),
        )
        offer = OfferedChange.objects.filter(character=target, status="pending").first()
        if offer is not None:
            return other, target, offer
    raise AssertionError("no attack landed")


def test_applying_an_offer_while_its_character_is_deleted_never_deadlocks():
    """Before: the offer was locked before its character, the deletion locks the character, then deletes its
    offers: 9 of 10 rounds deadlocked on PostgreSQL."""
    errors: list[BaseException] = []
    targets = []
    for n in range(ROUNDS // 2):
        other, target, offer = _offered(n)
        targets.append(target.pk)
        errors += together(
            lambda: character_services.offer_apply(offer_id=offer.pk, by=other),  # noqa: B023
            lambda: character_services.character_delete(character_id=target.pk, by=other),  # noqa: B023
        )
    assert errors == []
    assert not Character.objects.filter(pk__in=targets).exists()


@postgresql_only
def test_locking_the_offer_before_its_character_deadlocks_with_the_deletion_control():
    errors: list[BaseException] = []
    for n in range(3):
        other, target, offer = _offered(n)
        both_hold_one = threading.Barrier(2)

        @transaction.atomic
        def old_apply(offer=offer, target=target, both_hold_one=both_hold_one):
            OfferedChange.objects.select_for_update().get(pk=offer.pk)
            both_hold_one.wait()
            locking.lock_character(target.pk)

        @transaction.atomic
        def delete(target=target, both_hold_one=both_hold_one):
            locking.lock_character(target.pk)
            both_hold_one.wait()
            Character.objects.filter(pk=target.pk).delete()

        errors += together(old_apply, delete)
    assert _deadlocks(errors) == 3, errors


# --- the roll cap: exact under bursts, whoever rolls what ----------------------------------------------------------


def _rolls_this_minute(user) -> int:
    return Roll.objects.filter(roller=user, created_at__gte=timezone.now() - timedelta(minutes=1)).count()


def test_npc_damage_and_a_roll_by_the_same_gm_never_deadlock_and_keep_the_cap(table, settings):
    """The GM's critical harm on an NPC (a roll the table logs) and the GM's roll for a character, with room for
    one more roll under the cap: at most one of them rolls. Before: both did in 2 of 20 rounds on PostgreSQL."""
    campaign, gm, owner, zed, abe = table
    session.encounter_start(campaign_id=campaign.pk, name="Brawl", by=gm)
    npc = session.npc_add(campaign_id=campaign.pk, name="Ghoul", stats={"hp": 4}).row
    errors: list[BaseException] = []
    over = 0
    for n in range(ROUNDS):
        settings.ROLLS_PER_MINUTE = _rolls_this_minute(gm) + 1
        Npc.objects.filter(pk=npc.pk).update(stats={**npc.stats, "hp": 4}, defeated=False)
        errors += together(
            lambda: session.npc_damage(campaign_id=campaign.pk, npc_id=npc.pk, amount=9, by=gm),
            _attack(zed, abe, gm, n),
        )
        over += _rolls_this_minute(gm) > settings.ROLLS_PER_MINUTE
    assert errors == []
    assert over == 0


def test_a_burst_of_rolls_from_one_account_stops_exactly_at_the_cap(table, settings):
    """Twelve rolls at once with room for five: five roll, seven are refused. Before: on PostgreSQL each saw
    room in the log and all 12 rolled."""
    campaign, gm, owner, zed, abe = table
    settings.ROLLS_PER_MINUTE = _rolls_this_minute(owner) + 5
    rolls = [
        lambda n=n: character_services.character_roll(
            character_id=[zed, abe][n % 2].pk, procedure="test", params={}, by=owner, rng=random.Random(n)
        )
        for n in range(12)
    ]
    assert together(*rolls) == []
    assert _rolls_this_minute(owner) == settings.ROLLS_PER_MINUTE


@postgresql_only
def test_counting_the_rolls_without_the_rollers_lock_lets_a_burst_past_the_cap_control(table, settings):
    """The old count: each transaction read the log, saw room, and rolled."""
    campaign, gm, owner, zed, abe = table
    settings.ROLLS_PER_MINUTE = _rolls_this_minute(owner) + 1
    all_counted = threading.Barrier(2)

    @transaction.atomic
    def old_roll(character):
        room = _rolls_this_minute(owner) < settings.ROLLS_PER_MINUTE
        all_counted.wait()
        if room:
            Roll.objects.create(campaign=campaign, character=character, roller=owner, label="Test", outcome="pass")

    assert together(lambda: old_roll(zed), lambda: old_roll(abe)) == []
    assert _rolls_this_minute(owner) > settings.ROLLS_PER_MINUTE
