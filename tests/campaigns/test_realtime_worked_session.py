"""The worked session of issue 41: an hour of real-time play on a scripted clock (Fell, seed 000's price list: a
torch burns 1 hour, a lantern 3 hours). Wren carries a torch, Ash a lantern, and the GM keeps a hidden countdown
("Ritual completes", 6 segments, one every 10 minutes of game time). The ticker runs every ten minutes of wall
time; at each step the test reads what each viewer's pages and feeds show. ``pytest -s`` prints the timeline."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campaigns import session
from live import events as ev
from rules import base as rules_base
from tests.campaigns.test_realtime import light
from tests.conftest import client_for
from tests.recorded import Since, commit_pending

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def _left(page: str, name: str) -> str:
    match = re.search(rf'data-item="{re.escape(name)}".*?data-light-left="(\d+)"', page, re.S)
    return match.group(1) if match else "-"


def test_an_hour_of_real_time_with_a_torch_a_lantern_and_a_hidden_countdown(
    campaign, gm, player, other_player, hero, rival
):
    torch = light(hero, rules_base.Item("torch (1 hour)", "light"), player)
    lantern = light(rival, rules_base.Item("lantern (3 hours)", "light"), other_player)
    session.countdown_create(
        campaign_id=campaign.pk, name="Ritual completes", segments=6, shown="gm", every_minutes=10, by=gm
    )
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=T0)
    since = Since(campaign.pk)
    wren, ash, gm_client = client_for(player), client_for(other_player), client_for(gm)
    timeline = []
    for minute in range(0, 61, 10):
        session.realtime_tick_all(now=lambda minute=minute: T0 + timedelta(minutes=minute), rng=random.Random(minute))
        commit_pending()
        wren_sheet = wren.get(hero.get_absolute_url()).content.decode()
        ash_sheet = ash.get(rival.get_absolute_url()).content.decode()
        gm_table = gm_client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
        wren_table = wren.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
        ritual = re.search(r'data-countdown="Ritual completes".*?data-filled="(\d+)"', gm_table, re.S)
        events = [(e.kind, e.seen.who, e.seen.to) for e in since.events() if e.kind.startswith(("light", "count"))]
        row = {
            "wall": f"+{minute} min",
            "game": session.realtime_game_seconds(_fresh(campaign), T0 + timedelta(minutes=minute)) // 60,
            "wren torch": _left(wren_sheet, torch.name),
            "wren low": "Running low" in wren_sheet,
            "ash lantern": _left(ash_sheet, lantern.name),
            "ash sees wren's torch time": f'data-light-left="{_left(wren_sheet, torch.name)}"'
            in ash.get(hero.get_absolute_url()).content.decode(),
            "gm ritual": ritual.group(1) if ritual else "-",
            "players see ritual": "Ritual" in wren_table or "cannot name" in wren_table,
            "journal": events,
        }
        timeline.append(row)
        since.clear()
    for row in timeline:
        print(row)  # noqa: T201 - the worked session's timeline, for the report
    assert [r["game"] for r in timeline] == [0, 10, 20, 30, 40, 50, 60]
    assert [r["wren torch"] for r in timeline] == ["60", "50", "40", "30", "20", "10", "60"]  # the kit's next torch
    assert [r["wren low"] for r in timeline] == [False] * 5 + [True, False]
    assert [r["ash lantern"] for r in timeline] == ["180", "170", "160", "150", "140", "130", "120"]
    assert [r["gm ritual"] for r in timeline] == ["0", "1", "2", "3", "4", "5", "6"]
    assert not any(r["players see ritual"] or r["ash sees wren's torch time"] for r in timeline)
    assert ("light.low", "gm", (player.pk,)) in timeline[5]["journal"]
    assert all(who == "gm" for r in timeline for kind, who, _ in r["journal"] if kind.startswith("count"))
    assert isinstance(ev.CountdownTicked(countdown=1), ev.Event)


def _fresh(campaign):
    campaign.refresh_from_db()
    return campaign
