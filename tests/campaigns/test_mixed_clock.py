"""A mixed table's clock (issue 42): the GM's units are the home system's, and the same span of game time passes on
each sheet by its own system's rules (its lights, its food, its hours awake), warned of low light by its own
system's setting; the time checks are the home system's alone."""

from __future__ import annotations

import pytest
from django.urls import reverse

import rules
from campaigns.models import Campaign, Membership
from campaigns.services import campaign_change_settings, campaign_create
from campaigns.session.clock import clock_advance
from campaigns.session.realtime import light_set_time
from characters.models import Character, Item, Roll
from characters.services import item_add
from rules import base as rules_base
from tests.conftest import make_character, make_user, seat_one_per_system
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db

HOME = "fell-draft"
ALSO = ["chaos-conquest", "fortunes-favor", "grit-flesh", "fell-late"]
# One torch each, lit: every system that burns lights reads it as an hour's light (the Fells by its name, C&C and
# G&F by its six turns); a system that keeps no such field takes it without.
TORCH = rules_base.Item("Torch", "light", 1, 1, {"turns": 6, "lit": True})


def _give_torch(character, by):
    own = rules.system_for(character.system)
    for data in (TORCH.data, {"lit": True}, {}):
        try:
            own.validate_item(rules_base.Item("Torch", "light", 1, 1, data))
        except rules.RulesError:
            continue
        return item_add(character_id=character.pk, item=rules_base.Item("Torch", "light", 1, 1, data), by=by).row
    raise AssertionError(f"{character.system} takes no torch")


@pytest.fixture
def table(gm):
    return campaign_create(name="The crossroads", system=HOME, gm=gm, also=ALSO)


@pytest.fixture
def party(table):
    """One player and one character per system, each holding one lit torch."""
    out = seat_one_per_system(table)
    for character in out.values():
        _give_torch(character, character.owner)
    return out


def _torch(character) -> Item | None:
    return (
        Item.objects.filter(character=character, name="Torch", data__lit=True).first()
        or Item.objects.filter(character=character, name="Torch").first()
    )


def _advance(client, campaign, unit, count):
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:time_advance", args=[campaign.pk])
    return client.post(url, form_fields(page, url, unit=unit, count=str(count)), **HTMX)


def _burners(party):
    return {key: c for key, c in party.items() if rules.system_for(key).light_sources() is not None}


def test_the_gm_offers_the_home_systems_units_only(table, party, gm, as_user):
    page = text_of(as_user(gm).get(reverse("campaigns:detail", args=[table.pk])))
    assert "Exploration round (10 minutes)" in page and "Watch (4 hours)" not in page
    refused = _advance(as_user(gm), table, "turn", 1)  # a C&C unit: not this table's clock
    assert refused.status_code == 422 and "Select a valid choice" in text_of(refused)


def test_half_an_hour_burns_every_pcs_torch_by_its_own_rules(table, party, gm, as_user):
    before = {key: (c.state.get("hours_awake"), _torch(c).quantity) for key, c in party.items()}
    response = _advance(as_user(gm), table, "exploration", 3)
    assert response.status_code == 200, text_of(response)
    table.refresh_from_db()
    assert table.game_minutes == 30
    for key, character in _burners(party).items():
        torch = _torch(character)
        assert torch.data["burned"] == 30 and torch.data["lit"] is True, key
        assert f"{character.name}: Torch: 30 min of light left." in table.clock_note, key
    # The luck die is the table's (the home system's): one a round; no other system's checks are rolled.
    assert sorted(Roll.objects.filter(character=None).values_list("procedure", flat=True)) == ["luck"] * 3
    ff = party["fortunes-favor"]
    ff.refresh_from_db()
    assert ff.state["hours_awake"] == before["fortunes-favor"][0]  # half an hour: no hour awake yet
    response = _advance(as_user(gm), table, "exploration", 3)  # the hour ends: each torch burns out
    for key, character in _burners(party).items():
        assert not Item.objects.filter(character=character, name="Torch", data__lit=True).exists(), key
        assert character.changes.filter(what__startswith="Time passes").count() == 2, key
    ff.refresh_from_db()
    assert ff.state["hours_awake"] == before["fortunes-favor"][0] + 1  # its own rule: an hour awake


def test_short_spans_add_up_on_each_systems_own_grid(gm):
    """A Fortune's Favor home: its 30-second rounds cross a C&C turn (10 minutes) once twenty of them have passed."""
    home = campaign_create(name="Rounds", system="fortunes-favor", gm=gm, also=["chaos-conquest"])
    player = make_user("p")
    Membership.objects.create(campaign=home, user=player)
    wren = make_character(player, home, system="chaos-conquest", name="Wren", seed=3)
    _give_torch(wren, player)
    for _ in range(19):
        clock_advance(campaign_id=home.pk, unit="round", count=1, by=gm)
    assert _torch(wren).data.get("burned", 0) == 0
    clock_advance(campaign_id=home.pk, unit="round", count=1, by=gm)
    assert _torch(wren).data["burned"] == 10
    home.refresh_from_db()
    assert (home.game_minutes, home.game_seconds) == (10, 0)


def test_a_special_unit_passes_as_plain_time_on_other_sheets(gm):
    """A Fortune's Favor hour through treacherous terrain is an hour for a Grit & Flesh sheet; a Grit & Flesh night's
    sleep is no unit another system counts a span in."""
    home = campaign_create(name="Terrain", system="fortunes-favor", gm=gm, also=["grit-flesh"])
    player = make_user("p")
    Membership.objects.create(campaign=home, user=player)
    tam = make_character(player, home, system="grit-flesh", name="Tam", seed=3)
    _give_torch(tam, player)
    clock_advance(campaign_id=home.pk, unit="terrain", count=1, by=gm)
    assert not Item.objects.filter(character=tam, name="Torch", data__lit=True).exists()
    grit = rules.system_for("grit-flesh")
    assert [u.key for u, _ in grit.time_steps(0, 8 * 3600)] == ["hour"]


def test_low_light_warnings_follow_each_systems_own_setting(table, party, gm):
    campaign_change_settings(campaign_id=table.pk, values={"light_warning": 40}, by=gm, system="chaos-conquest")
    campaign_change_settings(campaign_id=table.pk, values={"light_warning": 0}, by=gm, system=HOME)
    clock_advance(campaign_id=table.pk, unit="exploration", count=3, by=gm)
    table.refresh_from_db()
    assert f"{party['chaos-conquest'].name}: Torch is running low (30 min left)." in table.clock_note
    assert f"{party[HOME].name}: Torch is running low" not in table.clock_note
    for key in ("grit-flesh", "fell-late"):  # their own default (10 minutes) is not reached
        assert f"{party[key].name}: Torch is running low" not in table.clock_note


def test_the_gm_sets_a_lights_time_by_its_holders_system(table, party, gm):
    cc = party["chaos-conquest"]
    torch = _torch(cc)
    light_set_time(campaign_id=table.pk, character_id=cc.pk, item_id=torch.pk, minutes=50, by=gm)
    torch.refresh_from_db()
    assert torch.data["burned"] == 10
    ff = party["fortunes-favor"]  # its system burns no lights: said, nothing written
    versions = Character.objects.get(pk=ff.pk).version
    with pytest.raises(Exception, match="burns no lights"):
        light_set_time(campaign_id=table.pk, character_id=ff.pk, item_id=_torch(ff).pk, minutes=5, by=gm)
    assert Character.objects.get(pk=ff.pk).version == versions


def test_a_table_of_one_system_runs_as_before(gm):
    """The home system's characters take the GM's unit as pressed (no conversion)."""
    alone = campaign_create(name="Alone", system="chaos-conquest", gm=gm)
    player = make_user("p")
    Membership.objects.create(campaign=alone, user=player)
    wren = make_character(player, alone, system="chaos-conquest", name="Wren", seed=3)
    _give_torch(wren, player)
    clock_advance(campaign_id=alone.pk, unit="turn", count=2, by=gm)
    assert _torch(wren).data["burned"] == 20
    assert Campaign.objects.get(pk=alone.pk).game_minutes == 20


def test_real_time_at_a_mixed_table_steps_in_the_home_systems_unit_and_burns_every_torch(gm):
    """A Fortune's Favor home runs in real time minute by minute; a C&C torch burns a turn each ten of them."""
    from datetime import UTC, datetime, timedelta

    from campaigns.session.realtime import realtime_catch_up, realtime_start

    home = campaign_create(name="Running", system="fortunes-favor", gm=gm, also=["chaos-conquest"])
    player = make_user("p")
    Membership.objects.create(campaign=home, user=player)
    wren = make_character(player, home, system="chaos-conquest", name="Wren", seed=3)
    _give_torch(wren, player)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    realtime_start(campaign_id=home.pk, by=gm, rate=60, now=start)
    assert realtime_catch_up(campaign_id=home.pk, now=start + timedelta(seconds=9)) == 9
    assert _torch(wren).data.get("burned", 0) == 0
    assert realtime_catch_up(campaign_id=home.pk, now=start + timedelta(seconds=10)) == 1
    assert _torch(wren).data["burned"] == 10


def test_in_the_dark_each_system_that_tracks_light_names_its_own_light(gm, as_user):
    """A Fortune's Favor home tracks no light; its C&C guest does: the GM can still take the party into the dark,
    and the table says how C&C judges the party's light."""
    home = campaign_create(name="Dark", system="fortunes-favor", gm=gm, also=["chaos-conquest"])
    player = make_user("p")
    Membership.objects.create(campaign=home, user=player)
    wren = make_character(player, home, system="chaos-conquest", name="Wren", seed=3)
    _give_torch(wren, player)
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[home.pk]))
    url = reverse("campaigns:time_daylight", args=[home.pk])
    response = client.post(url, form_fields(page, url, daylight="0"), **HTMX)
    assert response.status_code == 200, text_of(response)
    html = response.content.decode()
    assert 'data-system-light="chaos-conquest"' in html and "Chaos &amp; Conquest: " in html
    assert 'data-system-light="fortunes-favor"' not in html
