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
from django.db import close_old_connections, connection, transaction

from campaigns import services
from campaigns.models import Campaign, Membership
from characters import services as character_services
from characters.models import Character
from tests.conftest import make_character, make_user

pytestmark = pytest.mark.django_db(transaction=True)

RACES = 40
ATTACKS = 20
postgresql_only = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="SQLite's IMMEDIATE transactions serialise writers: no race"
)


def _together(*actions) -> list[BaseException]:
    """Run the actions in threads released at once; return the unexpected errors they raised."""
    barrier = threading.Barrier(len(actions))
    errors: list[BaseException] = []

    def run(action):
        try:
            barrier.wait()
            action()
        except (services.CampaignError, character_services.RulesError):
            pass  # a readable refusal is a correct answer to a race
        except BaseException as error:  # noqa: BLE001 - the test counts whatever went wrong
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(action,)) for action in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return errors


def _campaigns_racing_transfer_and_leave(transfer, leave) -> tuple[int, list[BaseException]]:
    gm, heir = make_user("racegm"), make_user("raceheir")
    errors: list[BaseException] = []
    for n in range(RACES):
        campaign = Campaign.objects.create(name=f"Race {n}", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=heir)
        errors += _together(lambda c=campaign: transfer(c, heir), lambda c=campaign: leave(c, heir))
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

        errors += _together(lambda: attack(first, second), lambda: attack(second, first))
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

        errors += _together(lambda: old_attack(first, second), lambda: old_attack(second, first))
    assert any("deadlock" in str(error).lower() for error in errors), errors
