"""Concurrent writes with real threads (issue 9, finding 4): a campaign always keeps one GM; mutual attacks
never deadlock.

Each test runs the real services from two threads released together by a barrier. Each has a control
that runs the old, unsafe way under the same harness and must fail, which shows the harness can see the
failure. The controls need PostgreSQL: SQLite's IMMEDIATE transactions let only one writer in at a time.
"""

from __future__ import annotations

import random
import threading

import pytest
from django.db import transaction

from campaigns import services
from campaigns.models import Campaign, Membership
from characters import services as character_services
from characters.models import Character
from tests.conftest import make_character, make_user
from tests.races import postgresql_only, together

pytestmark = pytest.mark.django_db(transaction=True)

RACES = 40
ATTACKS = 20


def _campaigns_racing_transfer_and_leave(transfer, leave) -> tuple[int, list[BaseException]]:
    gm, heir = make_user("racegm"), make_user("raceheir")
    errors: list[BaseException] = []
    for n in range(RACES):
        campaign = Campaign.objects.create(name=f"Race {n}", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=heir)
        errors += together(lambda c=campaign: transfer(c, heir), lambda c=campaign: leave(c, heir))
    without_gm = Campaign.objects.exclude(memberships__role=Membership.Role.GM).count()
    return without_gm, errors


def test_make_gm_racing_leave_always_leaves_one_gm():
    without_gm, errors = _campaigns_racing_transfer_and_leave(
        lambda campaign, user: services.campaign_transfer_gm(campaign=campaign, to_user_id=user.pk),
        lambda campaign, user: services.campaign_leave(campaign=campaign, user=user),
    )
    assert errors == []
    assert without_gm == 0


@postgresql_only
def test_the_unlocked_leave_loses_the_gm_control():
    """The old services: transfer locked only the memberships, leave read its row unlocked."""
    handover = threading.Barrier(2)

    @transaction.atomic
    def old_transfer(campaign, user):
        rows = {m.user_id: m for m in Membership.objects.select_for_update().filter(campaign=campaign)}
        handover.wait()
        Membership.objects.filter(campaign=campaign, role=Membership.Role.GM).update(role=Membership.Role.PLAYER)
        Membership.objects.filter(pk=rows[user.pk].pk).update(role=Membership.Role.GM)

    @transaction.atomic
    def old_leave(campaign, user):
        membership = Membership.objects.filter(campaign=campaign, user=user).first()
        handover.wait()
        if membership.is_gm:
            raise services.CampaignError("the GM cannot leave")
        Membership.objects.filter(pk=membership.pk).delete()

    without_gm, errors = _campaigns_racing_transfer_and_leave(old_transfer, old_leave)
    assert without_gm > 0, "expected the unlocked version to leave campaigns without a GM"


def _duellists():
    owner = make_user("duelist")
    campaign = Campaign.objects.create(name="Duel", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=owner, role=Membership.Role.GM)
    # One owner holds both, so each attack really writes the other sheet.
    first = make_character(owner, campaign, name="First", seed=1)
    second = make_character(owner, campaign, name="Second", seed=2)
    return owner, first, second


def test_two_characters_attacking_each_other_at_once_never_deadlock():
    owner, first, second = _duellists()
    errors: list[BaseException] = []
    for n in range(ATTACKS):

        def attack(me, them, seed=n):
            character_services.character_roll(
                character_id=me.pk, procedure="attack", params={"target": them.pk}, by=owner, rng=random.Random(seed)
            )

        errors += together(lambda: attack(first, second), lambda: attack(second, first))
    assert errors == []
    assert Character.objects.get(pk=first.pk).version > 1 and Character.objects.get(pk=second.pk).version > 1


@postgresql_only
def test_locking_each_side_in_its_own_order_deadlocks_control():
    """The old order: each roll locked its own character, then the one it named."""
    owner, first, second = _duellists()
    both_hold_their_own = threading.Barrier(2)
    errors: list[BaseException] = []
    for _ in range(ATTACKS // 4):

        @transaction.atomic
        def old_attack(me, them):
            Character.objects.select_for_update().get(pk=me.pk)
            both_hold_their_own.wait()
            Character.objects.select_for_update().get(pk=them.pk)

        errors += together(lambda: old_attack(first, second), lambda: old_attack(second, first))
    assert any("deadlock" in str(error).lower() for error in errors), errors


def test_two_torches_lit_at_once_while_time_passes_leave_the_right_light():
    """Table conditions (issue 16): two players light torches at the same moment the GM moves the clock. Each
    write saw only its own torch, but the light is worked out again under the campaign's lock once each commits:
    4 LP for 4 is bright (equipment.md, Light), and nothing deadlocks."""
    from campaigns import session
    from campaigns.conditions import refresh_conditions
    from characters.models import Item

    gm = make_user("lightgm")
    owner = make_user("lightplayer")
    for n in range(8):
        campaign = Campaign.objects.create(name=f"Dark {n}", system="chaos-conquest", daylight=False)
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=owner)
        party = [make_character(owner, campaign, system="chaos-conquest", name=f"P{i}", seed=i) for i in range(4)]
        Item.objects.filter(character__campaign=campaign, kind="light").delete()
        torches = [
            Item.objects.create(character=pc, name="Torch", kind="light", quantity=1, data={"lp": 2, "turns": 6})
            for pc in party[:2]
        ]
        refresh_conditions(campaign.pk)  # darkness: no light lit yet

        def light(torch, pc):
            return lambda: character_services.character_roll(
                character_id=pc.pk, procedure="light", params={"source": str(torch.pk), "lit": True}, by=owner
            )

        errors = together(
            light(torches[0], party[0]),
            light(torches[1], party[1]),
            lambda c=campaign: session.clock_advance(campaign_id=c.pk, unit="turn", count=1, by=gm),
        )
        assert errors == []
        campaign.refresh_from_db()
        assert Item.objects.filter(pk__in=[t.pk for t in torches], data__lit=True).count() == 2
        assert campaign.conditions == {"light": "bright"}, n


def test_a_roll_while_the_gm_moves_the_clock_never_deadlocks():
    """The clock locks the campaign, then each character; a roll locks its character, then stores a row pointing at
    the campaign. The campaign's lock is FOR NO KEY UPDATE, which that row's key-share lock does not wait for: with
    FOR UPDATE these two deadlocked on PostgreSQL."""
    from campaigns import session

    gm, owner = make_user("clockgm"), make_user("clockplayer")
    errors: list[BaseException] = []
    for n in range(8):
        campaign = Campaign.objects.create(name=f"Clock {n}", system="chaos-conquest")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=owner)
        pcs = [make_character(owner, campaign, system="chaos-conquest", name=f"P{i}", seed=i) for i in range(2)]
        errors += together(
            lambda pc=pcs[0]: character_services.character_roll(
                character_id=pc.pk, procedure="save", params={"attribute": "STR"}, by=owner
            ),
            lambda c=campaign: session.clock_advance(campaign_id=c.pk, unit="turn", count=1, by=gm),
        )
    assert errors == []
