"""Two players' attacks racing for the last pending place on a third player's sheet (issue 23): one offer is made,
the other roll is refused, and the cap holds.

The harness is tests/campaigns/test_races.py's: threads released together by a barrier. The control counts
without the target's lock, as a check placed before character_roll's locks would, and must overshoot the cap:
it shows the harness can see the race. The control needs PostgreSQL (SQLite lets one writer in at a time).
"""

from __future__ import annotations

import random
import threading

import pytest
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters import services
from characters.models import OFFERS_PENDING_MAX, OfferedChange, Roll
from rules import RulesError
from tests.conftest import make_character, make_user
from tests.races import postgresql_only, together

pytestmark = pytest.mark.django_db(transaction=True)

RACES = 8


def _landing_seed(attacker, target, by) -> int:
    """A seed whose attack on ``target`` offers a change (the sheets stay as they are: offers are not applied)."""
    for seed in range(60):
        before = OfferedChange.objects.count()
        services.character_roll(
            character_id=attacker.pk, procedure="attack", params={"target": target.pk}, by=by, rng=random.Random(seed)
        )
        if OfferedChange.objects.count() > before:
            return seed
    raise AssertionError("no attack in 60 landed")


def _table():
    gm, first, second, owner = (make_user(name) for name in ("racegm", "first", "second", "owner"))
    campaign = Campaign.objects.create(name="Crowded", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for user in (first, second, owner):
        Membership.objects.create(campaign=campaign, user=user)
    one, two = make_character(first, campaign, name="One", seed=1), make_character(second, campaign, name="Two", seed=2)
    target = make_character(owner, campaign, name="Target", seed=3)
    seeds = _landing_seed(one, target, first), _landing_seed(two, target, second)
    model = OfferedChange.objects.filter(character=target).first()
    return (first, one), (second, two), target, seeds, model


def _leave_one_place(target, model) -> None:
    OfferedChange.objects.filter(character=target).delete()
    fields = {f.name: getattr(model, f.name) for f in OfferedChange._meta.concrete_fields if f.name != "id"}
    fields["roll"] = None  # its roll goes with the log below
    OfferedChange.objects.bulk_create(OfferedChange(**fields) for _ in range(OFFERS_PENDING_MAX - 1))
    Roll.objects.all().delete()  # the roll rate counts the log: these races are not a flood


def _pending(target) -> int:
    return OfferedChange.objects.filter(character=target, status="pending").count()


def test_two_attacks_racing_for_the_last_place_make_one_offer():
    (first, one), (second, two), target, seeds, model = _table()
    errors: list[BaseException] = []
    for _ in range(RACES):
        _leave_one_place(target, model)

        def attack(by, me, seed):
            services.character_roll(
                character_id=me.pk, procedure="attack", params={"target": target.pk}, by=by, rng=random.Random(seed)
            )

        errors += together(lambda: attack(first, one, seeds[0]), lambda: attack(second, two, seeds[1]))
        assert _pending(target) == OFFERS_PENDING_MAX
    assert errors == []


@postgresql_only
def test_counting_without_the_targets_lock_overshoots_the_cap_control():
    (first, one), (second, two), target, seeds, model = _table()
    both_counted = threading.Barrier(2)
    over = 0
    for _ in range(RACES):
        _leave_one_place(target, model)

        @transaction.atomic
        def unlocked_offer(by):
            if _pending(target) >= OFFERS_PENDING_MAX:
                raise RulesError("full")
            both_counted.wait()
            fields = {f.name: getattr(model, f.name) for f in OfferedChange._meta.concrete_fields if f.name != "id"}
            OfferedChange.objects.create(**{**fields, "roll": None, "offered_by": by})

        assert together(lambda: unlocked_offer(first), lambda: unlocked_offer(second)) == []
        over += _pending(target) > OFFERS_PENDING_MAX
    assert over > 0, "expected counting without the lock to overshoot the cap"
