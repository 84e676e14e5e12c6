"""Time the server keeps (issue 41): each light's time left, the table's light rules, low-fuel warnings, the GM's
corrections, game time running with the wall clock (scripted: a ``now`` passed in, never a sleep) across a server
restart, and countdowns with what players see of them on the page, the push, the API feed and webhooks.

Fell (seed 000's price list): a torch burns 1 hour, a lantern 3 hours; the clock's step is its exploration round
(10 minutes), which also rolls the luck die as the GM's."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaigns import commands, push, session
from campaigns.models import Campaign, Countdown, Membership
from characters.models import Change, Item
from characters.services import item_add
from live import events as ev
from rules import base as rules_base
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since, commit_pending
from webhooks.payloads import Audience, kind_of

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
TORCH = rules_base.Item("torch (1 hour)", "light", 1, 1, {})
LANTERN = rules_base.Item("lantern (3 hours)", "light", 1, 1, {})


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def light(character, item, by, **data) -> Item:
    row = item_add(character_id=character.pk, item=item, by=by).row
    row.data = {**row.data, "lit": True, **data}
    row.save(update_fields=["data"])
    return row


def seat(user, campaign) -> Membership:
    return Membership.objects.select_related("campaign").get(user=user, campaign=campaign)


@pytest.fixture
def torch(hero, player):
    return light(hero, TORCH, player)


def test_real_time_burns_a_torch_as_the_wall_clock_runs_then_pauses(campaign, gm, hero, torch):
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=T0)
    assert session.realtime_catch_up(campaign_id=campaign.pk, now=at(9), rng=random.Random(1)) == 0
    assert session.realtime_catch_up(campaign_id=campaign.pk, now=at(25), rng=random.Random(1)) == 2
    torch.refresh_from_db()
    campaign.refresh_from_db()
    assert (campaign.game_minutes, torch.data["burned"]) == (20, 20)
    assert campaign.realtime_since == at(20)  # the stored time of play is that of 20:20
    assert session.realtime_game_seconds(campaign, at(25)) == 25 * 60  # shown on every read
    session.realtime_pause(campaign_id=campaign.pk, by=gm, now=at(27))
    campaign.refresh_from_db()
    assert campaign.realtime_since is None and campaign.realtime_carry == 7 * 60
    assert session.realtime_game_seconds(campaign, at(500)) == 20 * 60  # paused: nothing runs
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=at(100))
    assert session.realtime_catch_up(campaign_id=campaign.pk, now=at(103), rng=random.Random(1)) == 1  # 7 + 3
    campaign.refresh_from_db()
    assert campaign.game_minutes == 30


def test_real_time_ticks_across_a_server_restart_through_the_ticker_command(campaign, gm, hero, torch):
    """The running clock is a row: a fresh process (the ticker command, no state of ours) reads it and applies
    what fell due while nothing ran, lights out and all, in the journal."""
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=T0)
    # The server was away: an hour of wall time passed since the time of play was stored.
    Campaign.objects.filter(pk=campaign.pk).update(realtime_since=datetime.now(UTC) - timedelta(minutes=65))
    since = Since(campaign.pk)
    carried = torch.quantity  # the kit's torch and this one make one stack
    call_command("clock_ticker", "--once")
    campaign.refresh_from_db()
    assert campaign.game_minutes == 60
    left = Item.objects.filter(pk=torch.pk).first()
    assert (left.quantity, left.data["lit"]) == (carried - 1, False) if left else carried == 1  # one burned out
    assert "burned out" in campaign.clock_note
    commit_pending()
    kinds = since.kinds()
    assert "clock.moved" in kinds and "light.low" in kinds
    call_command("clock_ticker", "--once")  # nothing more is due: the next round changes nothing
    campaign.refresh_from_db()
    assert campaign.game_minutes == 60


def test_the_session_code_pauses_real_time_whether_or_not_it_runs(campaign, gm):
    assert session.realtime_pause(campaign_id=campaign.pk, quiet=True).regions == frozenset()
    with pytest.raises(session.CampaignError, match="not running"):
        session.realtime_pause(campaign_id=campaign.pk)
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=T0)
    with pytest.raises(session.CampaignError, match="running already"):
        session.realtime_start(campaign_id=campaign.pk, by=gm, now=T0)
    session.realtime_pause(campaign_id=campaign.pk, quiet=True, now=at(5))
    campaign.refresh_from_db()
    assert campaign.realtime_since is None and campaign.realtime_carry == 300


@pytest.mark.parametrize("rate", [0, 61, -1])
def test_a_rate_out_of_bounds_is_refused_with_a_sentence(campaign, gm, rate):
    with pytest.raises(session.CampaignError, match="1 to 60 times"):
        session.realtime_start(campaign_id=campaign.pk, by=gm, rate=rate)
    campaign.refresh_from_db()
    assert campaign.realtime_since is None


def test_the_holder_is_warned_once_when_a_light_runs_low_seed_000(campaign, gm, player, hero, torch):
    since = Since(campaign.pk)
    session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=4, by=gm, rng=random.Random(1))
    commit_pending()
    assert since.of(ev.LightLow) == []  # 20 minutes left
    session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=1, by=gm, rng=random.Random(1))
    commit_pending()
    (warning,) = since.of(ev.LightLow)
    assert (warning.character, warning.item, warning.minutes) == (hero.pk, torch.pk, 10)
    assert warning.seen == ev.gm_only(player.pk)  # the holder and the GM
    sheet = text_of(_client(player).get(hero.get_absolute_url()))
    assert "Running low: 10 min of light left" in sheet
    session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=1, by=gm, rng=random.Random(1))
    commit_pending()
    assert len(since.of(ev.LightLow)) == 1  # once: the next step put it out instead


def test_the_table_can_switch_the_warning_off(campaign, gm, hero, torch):
    from campaigns.services import campaign_change_settings

    campaign_change_settings(campaign_id=campaign.pk, values={"light_warning": 0}, by=gm)
    since = Since(campaign.pk)
    session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=5, by=gm, rng=random.Random(1))
    commit_pending()
    assert since.of(ev.LightLow) == []


def _client(user):
    from tests.conftest import client_for

    return client_for(user)


def _light_from_sheet(client, character, item):
    page = client.get(character.get_absolute_url())
    url = reverse("characters:roll", args=[character.pk, "light"])
    response = client.post(url, form_fields(page, url, source=str(item.pk), lit="on"), **HTMX)
    assert response.status_code == 200, text_of(response)


@pytest.mark.parametrize(
    ("rules", "lantern_left", "torch_lit"),
    [({}, 180, True), ({"light_new": "ride"}, 40, True), ({"light_one_at_a_time": True}, 180, False)],
)
def test_a_lantern_lit_beside_a_torch_follows_the_tables_light_rules_seed_000(
    campaign, gm, player, hero, rules, lantern_left, torch_lit
):
    from campaigns.services import campaign_change_settings

    if rules:
        campaign_change_settings(campaign_id=campaign.pk, values=rules, by=gm)
    torch = light(hero, TORCH, player, burned=20)
    lantern = item_add(character_id=hero.pk, item=LANTERN, by=player).row
    _light_from_sheet(_client(player), hero, lantern)
    lantern.refresh_from_db()
    torch.refresh_from_db()
    assert lantern.data["lit"] and 180 - lantern.data.get("burned", 0) == lantern_left
    assert torch.data["lit"] is torch_lit
    page = _client(player).get(hero.get_absolute_url()).content.decode()
    assert f'data-light-left="{lantern_left}"' in page


def test_a_lights_time_left_is_shown_to_its_holder_and_the_gm_not_to_other_players(
    campaign, gm, player, other_player, hero, torch
):
    torch.data = {**torch.data, "burned": 20}
    torch.save(update_fields=["data"])
    for user, shown in ((player, True), (gm, True), (other_player, False)):
        page = _client(user).get(hero.get_absolute_url()).content.decode()
        assert ('data-light-left="40"' in page) is shown, user
        assert ("burned 20 minutes" in page) is shown, user


def test_the_gm_sets_a_lights_time_left_from_the_table_logged_in_history_and_journal(
    campaign, gm, player, hero, torch, django_assert_max_num_queries
):
    client = _client(gm)
    table = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:light_time", args=[campaign.pk, torch.pk])
    since = Since(campaign.pk)
    with django_assert_max_num_queries(60):
        response = client.post(url, form_fields(table, url, minutes="15"), **HTMX)
    assert response.status_code == 200, text_of(response)
    torch.refresh_from_db()
    assert torch.data["burned"] == 45
    assert f'data-gm-light="{torch.pk}"' in response.content.decode()
    commit_pending()
    (event,) = since.of(ev.LightTimeSet)
    assert event.seen == ev.gm_only(player.pk) and event.character == hero.pk
    change = Change.objects.filter(character=hero).order_by("-pk").first()
    assert change is not None and change.what.startswith("Light's time set")
    refused = client.post(url, form_fields(table, url, minutes="61"), **HTMX)
    assert refused.status_code == 422 and "1 to 60 minutes" in text_of(refused)
    torch.refresh_from_db()
    assert torch.data["burned"] == 45


def test_only_the_gm_keeps_time_lights_and_countdowns(campaign, gm, player, hero, torch):
    client = _client(player)
    countdown = Countdown.objects.create(campaign=campaign, name="Ritual completes", segments=6)
    for name, args, data in (
        ("realtime_start", [campaign.pk], {"rate": "1"}),
        ("realtime_pause", [campaign.pk], {}),
        ("light_time", [campaign.pk, torch.pk], {"minutes": "5"}),
        ("countdown_new", [campaign.pk], {"name": "Mine", "segments": "4", "shown": "all"}),
        ("countdown_tick", [campaign.pk, countdown.pk], {"step": "1"}),
        ("countdown_show", [campaign.pk, countdown.pk], {"shown": "gm"}),
        ("countdown_remove", [campaign.pk, countdown.pk], {}),
    ):
        assert client.post(reverse(f"campaigns:{name}", args=args), data, **HTMX).status_code == 404, name
    with pytest.raises(commands.NotTheGm):
        commands.tick_countdown(seat(player, campaign), countdown_id=countdown.pk, by=player)
    countdown.refresh_from_db()
    campaign.refresh_from_db()
    torch.refresh_from_db()
    assert (countdown.filled, countdown.shown, campaign.realtime_since, torch.data.get("burned", 0)) == (
        0,
        "all",
        None,
        0,
    )


def _make(client, campaign, **fields):
    table = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:countdown_new", args=[campaign.pk])
    response = client.post(url, form_fields(table, url, **fields), **HTMX)
    assert response.status_code == 200, text_of(response)
    return Countdown.objects.order_by("-pk").first()


def test_a_countdown_ticks_by_hand_and_by_game_time(campaign, gm, hero):
    client = _client(gm)
    ritual = _make(client, campaign, name="Ritual completes", segments="6", shown="all", every_minutes="20")
    assert (ritual.segments, ritual.every_minutes, ritual.anchor_minutes) == (6, 20, 0)
    url = reverse("campaigns:countdown_tick", args=[campaign.pk, ritual.pk])
    since = Since(campaign.pk)
    assert client.post(url, {"step": "1"}, **HTMX).status_code == 200
    session.clock_advance(campaign_id=campaign.pk, unit="exploration", count=6, by=gm, rng=random.Random(1))
    ritual.refresh_from_db()
    assert ritual.filled == 1 + 3  # one by hand, three by the hour of game time
    commit_pending()
    assert [e.by_time for e in since.of(ev.CountdownTicked)] == [False, True]
    table = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    new = reverse("campaigns:countdown_new", args=[campaign.pk])
    bad = client.post(new, form_fields(table, new, name="X", segments="99"), **HTMX)
    assert bad.status_code == 422 and "1 to 24 segments" in text_of(bad)
    assert campaign.countdowns.count() == 1


@pytest.mark.parametrize(
    ("shown", "name_seen", "progress_seen", "exists"),
    [
        ("all", True, True, True),
        ("name_hidden", False, True, True),
        ("progress_hidden", True, False, True),
        ("gm", False, False, False),
    ],
)
def test_what_players_see_of_a_countdown_on_page_push_api_and_webhooks(
    campaign, gm, player, hero, shown, name_seen, progress_seen, exists
):
    from tests.api.conftest import bearer

    countdown = session.countdown_create(
        campaign_id=campaign.pk, name="Ritual completes", segments=6, shown=shown, every_minutes=None, by=gm
    ).row
    since = Since(campaign.pk)
    session.countdown_tick(campaign_id=campaign.pk, countdown_id=countdown.pk, by=gm)
    commit_pending()
    (tick,) = since.of(ev.CountdownTicked)
    # The page
    page = _client(player).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert ("Ritual completes" in page) is name_seen
    assert ('data-filled="1"' in page) is progress_seen
    assert ("A countdown you cannot name" in page) is (exists and not name_seen)
    gm_page = _client(gm).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert "Ritual completes" in gm_page and 'data-filled="1"' in gm_page
    # The push: the tick reaches a player's open page only if they may see the progress move
    assert tick.seen.lets(player.pk, is_gm=False) is progress_seen
    out = push.render_push(campaign.pk, [tick], [(player.pk, "table"), (gm.pk, "table")])
    assert "Ritual completes" in out[(gm.pk, "table")]
    player_out = out.get((player.pk, "table"), "") if tick.seen.lets(player.pk, is_gm=False) else ""
    assert "Ritual completes" not in player_out or name_seen
    # The API: the time endpoint and the event feed
    body = bearer(player).get(f"/api/campaigns/{campaign.pk}/time").json()
    assert [c["name"] for c in body["countdowns"]] == (["Ritual completes" if name_seen else None] if exists else [])
    if exists:
        assert body["countdowns"][0]["filled"] == (1 if progress_seen else None)
    events = bearer(player).get(f"/api/campaigns/{campaign.pk}/events", {"after": 0}).json()
    kinds = [e["kind"] for entry in events["entries"] for e in entry["events"]]
    assert ("countdown.ticked" in kinds) is progress_seen
    assert ("countdown.changed" in kinds) is exists
    assert "Ritual" not in str(events)  # events carry ids, never a name
    # Webhooks: a countdown's events never leave, whoever the webhook speaks for
    assert kind_of(tick) is None
    assert Audience(None, None, None).sees(tick) is (tick.seen.who == "public")


def test_the_api_lets_the_gm_keep_time_and_refuses_players(campaign, gm, player, hero, torch):
    from tests.api.conftest import bearer

    table = bearer(gm, "table", campaign)
    started = table.send(f"/api/campaigns/{campaign.pk}/time/realtime", {"running": True, "rate": 2})
    assert started.status_code == 200, started.content
    assert started.json()["running"] is True and started.json()["rate"] == 2
    made = table.send(f"/api/campaigns/{campaign.pk}/countdowns", {"name": "Flood", "segments": 4, "shown": "gm"})
    assert made.status_code == 200 and made.json()["filled"] == 0
    tick = table.send(f"/api/campaigns/{campaign.pk}/countdowns/{made.json()['id']}/tick", {"step": 1})
    assert tick.json()["filled"] == 1
    set_light = table.send(f"/api/campaigns/{campaign.pk}/lights/{torch.pk}", {"minutes": 30})
    assert set_light.status_code == 200 and "30 min" in set_light.json()["detail"]
    wrong = table.send(f"/api/campaigns/{campaign.pk}/lights/{torch.pk}", {"minutes": 0})
    assert wrong.status_code == 422 and "1 to 60 minutes" in wrong.json()["detail"]
    paused = table.send(f"/api/campaigns/{campaign.pk}/time/realtime", {"running": False})
    assert paused.json()["running"] is False
    mine = bearer(player)
    assert mine.send(f"/api/campaigns/{campaign.pk}/countdowns", {"name": "X", "segments": 2}).status_code == 403
    assert mine.send(f"/api/campaigns/{campaign.pk}/time/realtime", {"running": True}).status_code == 403


def test_every_open_page_gets_the_running_clock_once_to_tick_by_itself(campaign, gm, player, hero, torch):
    session.realtime_start(campaign_id=campaign.pk, by=gm, rate=1)
    table = _client(player).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert "data-since=" in table and 'data-rate="1"' in table
    fight = _client(player).get(reverse("campaigns:sheet_fight", args=[campaign.pk, hero.pk]))
    assert "data-since=" in fight.content.decode() and "runs with the clock" in text_of(fight)
    out = push.render_push(campaign.pk, [ev.RealtimeChanged(running=True)], [(player.pk, f"sheet-{hero.pk}")])
    assert "data-since=" in out[(player.pk, f"sheet-{hero.pk}")]
