"""The table's conditions reach every sheet (issue 16): the GM says the party is in the dark, the party's lit light
sources set the light level, and Chaos & Conquest darkness puts saves at disadvantage on its own: in the sheet's
odds, in the roll, and in the answer to a GM's request. Equipment.md, Light (seed 002's source)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import RollRequest
from characters import services
from characters.models import Character, Roll
from characters.services import item_add
from live.events import LightChanged, SheetsChanged
from rules import base as rules_base
from rules import dice
from rules.dice import ScriptedRandom
from tests.conftest import make_character
from tests.pages import HTMX, form_fields, roll_form, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db

TORCH = rules_base.Item("Torch", "light", 1, 1, {"lp": 2, "turns": 6})


def _dark(client, campaign, daylight="0"):
    url = reverse("campaigns:time_daylight", args=[campaign.pk])
    return client.post(url, form_fields(client.get(campaign.get_absolute_url()), url, daylight=daylight), **HTMX)


def _light(client, character, item, lit="on"):
    page = client.get(character.get_absolute_url())
    url = reverse("characters:roll", args=[character.pk, "light"])
    fields = form_fields(page, url, source=str(item.pk))
    box = next(n for n in fields if n.endswith("lit"))
    if lit:
        fields[box] = lit
    else:  # an unticked box sends nothing: put out
        fields.pop(box)
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200, text_of(response)


def _str_pass(character) -> Fraction:
    character.refresh_from_db()
    target = character.to_sheet().state["attributes"]["STR"]
    return Fraction(min(max(target["current"], 1), 19), 20)


def test_in_daylight_nothing_applies_and_in_the_dark_the_party_lights_decide(cc, wren, gm, player, as_user):
    """Equipment.md, Light: LP below half the party is darkness; a lit torch (2 LP) makes one PC's light bright."""
    cc.refresh_from_db()
    assert cc.daylight and cc.conditions == {}
    table = as_user(gm).get(reverse("campaigns:time", args=[cc.pk]))
    assert 'data-light="daylight"' in table.content.decode()
    response = _dark(as_user(gm), cc)
    assert response.status_code == 200, text_of(response)
    cc.refresh_from_db()
    assert not cc.daylight and cc.conditions == {"light": "darkness"}
    assert "Darkness (0 LP for 1)" in text_of(response)
    torch = item_add(character_id=wren.pk, item=TORCH, by=player).row
    _light(as_user(player), wren, torch)
    cc.refresh_from_db()
    assert cc.conditions == {"light": "bright"}
    _light(as_user(player), wren, torch, lit="")
    cc.refresh_from_db()
    assert cc.conditions == {"light": "darkness"}
    _dark(as_user(gm), cc, daylight="1")
    cc.refresh_from_db()
    assert cc.daylight and cc.conditions == {}


def test_darkness_puts_the_sheets_save_at_disadvantage_in_its_odds_and_its_roll(
    cc, wren, gm, player, as_user, monkeypatch
):
    """Equipment.md, Light: in darkness saves are at disadvantage: the exact odds square, two d20s are rolled."""
    plain = _str_pass(wren)
    odds_url = reverse("characters:odds", args=[wren.pk, "save"])
    client = as_user(player)
    url, fields = roll_form(client, wren, "save", attribute="STR")
    before = client.get(odds_url, fields, **HTMX)
    assert f'data-odds="{plain.numerator}/{plain.denominator}"' in before.content.decode()
    _dark(as_user(gm), cc)
    dark = plain**2
    url, fields = roll_form(client, wren, "save", attribute="STR")  # the sheet as it reads in the dark
    after = client.get(odds_url, fields, **HTMX)
    assert f'data-odds="{dark.numerator}/{dark.denominator}"' in after.content.decode()
    sheet = as_user(player).get(wren.get_absolute_url())
    assert 'data-banner="light-darkness"' in sheet.content.decode()
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([1, 19]))
    wren.refresh_from_db()
    rolled = client.post(url, fields | {"version": wren.version}, **HTMX)
    assert rolled.status_code == 200, text_of(rolled)
    roll = Roll.objects.get(character=wren, procedure="save")
    assert roll.outcome == "fail" and len(roll.dice) == 2 and "in darkness" in roll.summary


def test_a_gm_request_answered_in_darkness_is_at_disadvantage(cc, wren, gm, player, as_user, monkeypatch):
    """Equipment.md, Light: the GM's request fixes the attribute; the darkness applies as on any save."""
    _dark(as_user(gm), cc)
    page = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))
    action = reverse("campaigns:request_new", args=[cc.pk])
    asked = as_user(gm).post(action, form_fields(page, action, **{"fix-attribute": "WIL"}), **HTMX)
    assert asked.status_code == 200, text_of(asked)
    request = RollRequest.objects.get()
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([2, 20]))
    sheet = as_user(player).get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    answer = reverse("campaigns:request_answer", args=[cc.pk, request.pk, wren.pk])
    assert as_user(player).post(answer, form_fields(sheet, answer), **HTMX).status_code == 200
    roll = Roll.objects.get(character=wren, procedure="save")
    assert roll.outcome == "fail" and len(roll.dice) == 2


def test_a_second_character_halves_the_light_and_leaving_restores_it(cc, wren, gm, player, other_player, as_user):
    """Equipment.md, Light: the level is LP against the party's size, so the party's size changes it."""
    _dark(as_user(gm), cc)
    torch = item_add(character_id=wren.pk, item=TORCH, by=player).row
    _light(as_user(player), wren, torch)
    ash = make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=11)
    cc.refresh_from_db()
    assert cc.conditions == {"light": "bright"}  # 2 LP for 2
    make_character(other_player, cc, system="chaos-conquest", name="Bo", seed=12)
    cc.refresh_from_db()
    assert cc.conditions == {"light": "dim"}  # 2 LP for 3
    services.character_delete(character_id=ash.pk, by=other_player)
    cc.refresh_from_db()
    assert cc.conditions == {"light": "bright"}


def test_lighting_a_torch_tells_the_table_and_every_sheet(cc, wren, gm, player, as_user, monkeypatch):
    """The light banner refreshes live: a light source lit announces "light" (the table's banner) and, as the level
    moves from darkness to bright, pushes every sheet's vitals and details (banners, odds) and card (issue 25)."""
    _dark(as_user(gm), cc)
    torch = item_add(character_id=wren.pk, item=TORCH, by=player).row
    sent = Since(cc.pk)
    _light(as_user(player), wren, torch)
    assert sent.of(LightChanged) == [LightChanged()]
    assert sent.of(SheetsChanged) == [SheetsChanged(regions=("vitals", "details", "requests"))]
    sheet = as_user(player).get(wren.get_absolute_url()).content.decode()
    assert f'data-table="{Character.objects.get(pk=wren.pk).table_stamp()}"' in sheet  # a pushed region lands
    table = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk])).content.decode()
    assert 'id="time"' in table and 'sse-swap="push"' in table  # the light banner arrives drawn


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 404), ("other_player", 404), ("stranger", 404)])
def test_only_the_gm_says_where_the_party_is(cc, wren, who, status, request, as_user):
    user = request.getfixturevalue(who)
    # posted by hand: only the GM's page holds the form
    response = as_user(user).post(reverse("campaigns:time_daylight", args=[cc.pk]), {"daylight": "0"}, **HTMX)
    assert response.status_code == status
    cc.refresh_from_db()
    assert cc.daylight is (status != 200)


def test_anonymous_is_sent_to_log_in_and_bad_input_changes_nothing(cc, wren, gm, client, as_user):
    response = client.post(reverse("campaigns:time_daylight", args=[cc.pk]), {"daylight": "0"})
    assert response.status_code == 302 and "login" in response["Location"]
    bad = _dark(as_user(gm), cc, daylight="maybe")
    assert bad.status_code == 422 and "daylight or in the dark" in text_of(bad)
    again = _dark(as_user(gm), cc, daylight="1")
    assert again.status_code == 422 and "in daylight already" in text_of(again)
    cc.refresh_from_db()
    assert cc.daylight and cc.conditions == {}
