"""Two tickers, or a ticker and the GM's pause, at once (issue 41): the campaign row's lock lets each step of game
time be applied once. The control: with the lock taken away, the same race applies a step twice."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest

from campaigns import session
from campaigns.models import Campaign
from campaigns.session import realtime
from tests.races import postgresql_only, together

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]
T0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def _race(campaign, *actions) -> Campaign:
    session.realtime_start(campaign_id=campaign.pk, by=campaign.memberships.get(role="gm").user, now=T0)
    assert together(*actions) == []
    campaign.refresh_from_db()
    return campaign


def _tick():
    session.realtime_tick_all(now=lambda: T0 + timedelta(minutes=25), rng=random.Random(1))


def test_two_tickers_at_once_apply_each_step_once(campaign, hero):
    assert _race(campaign, _tick, _tick, _tick).game_minutes == 20


def test_the_gms_pause_and_a_ticker_at_once_apply_each_step_once(campaign, hero):
    def pause():
        session.realtime_pause(campaign_id=campaign.pk, now=T0 + timedelta(minutes=25))

    done = _race(campaign, _tick, pause)
    assert (done.game_minutes, done.realtime_since, done.realtime_carry) == (20, None, 300)


def test_without_the_row_lock_two_tickers_apply_a_step_twice(campaign, hero):
    """The must-fail control: each reads the row unlocked, both see the same steps due, both apply them."""
    unlocked = Campaign.objects.get  # a plain read in place of select_for_update

    def lock(campaign_id, **kwargs):
        return unlocked(pk=campaign_id)

    real_advance = session.clock_advance
    both_read = threading.Barrier(2, timeout=30)

    def slow_advance(**kwargs):
        if kwargs.get("count") == 1 and not getattr(both_read, "passed", False):
            both_read.wait()  # both read the row before either writes: the window the lock closes
            both_read.passed = True  # type: ignore[attr-defined]
        return real_advance(**kwargs)

    with mock.patch.object(realtime, "lock_campaign", lock), mock.patch.object(realtime, "clock_advance", slow_advance):
        done = _race(campaign, _tick, _tick)
    assert done.game_minutes > 20
