"""The exploration clock (issue 16): the system's units advance from the table, lights burn down on every sheet,
food is eaten at the system's rhythm, the system's checks are rolled as the GM's, the light level shows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Item, Roll
from characters.services import item_add
from rules import base as rules_base
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db

TORCH = rules_base.Item("Torch", "light", 1, 2, {"lp": 2, "turns": 6})


def _light(client, character, item):
    """The player lights a torch from the sheet's roll panel (a roll with no dice: Apply)."""
    page = client.get(character.get_absolute_url())
    url = reverse("characters:roll", args=[character.pk, "light"])
    response = client.post(url, form_fields(page, url, source=str(item.pk), lit="on"), **HTMX)
    assert response.status_code == 200, text_of(response)


def _advance(client, campaign, unit, count):
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:time_advance", args=[campaign.pk])
    return client.post(url, form_fields(page, url, unit=unit, count=str(count)), **HTMX)


def test_turns_burn_a_lit_torch_and_roll_encounter_checks(cc, wren, gm, player, as_user):
    """Equipment.md, Light: a torch burns 6 turns; seed 002, Time: a d6 encounter check every two turns."""
    torch = item_add(character_id=wren.pk, item=TORCH, by=player).row
    torch.refresh_from_db()
    carried = torch.quantity  # the kit's torches and these two make one stack
    table = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))
    assert "Daylight." in text_of(table)  # the party's lights count once the GM says it is in the dark
    daylight = reverse("campaigns:time_daylight", args=[cc.pk])
    dark = as_user(gm).post(daylight, form_fields(table, daylight, daylight="0"), **HTMX)
    assert "Darkness (0 LP for 1)" in text_of(dark)
    _light(as_user(player), wren, torch)
    torch.refresh_from_db()
    assert torch.data["lit"] is True
    response = _advance(as_user(gm), cc, "turn", 3)
    assert response.status_code == 200, text_of(response)
    torch.refresh_from_db()
    cc.refresh_from_db()
    assert cc.game_minutes == 30 and torch.data["burned"] == 30 and torch.quantity == carried
    assert "Torch: 30 min of light left." in cc.clock_note
    assert "Bright light (2 LP for 1)" in text_of(response)
    checks = Roll.objects.filter(procedure="encounter_check")
    assert checks.count() == 1 and checks[0].visibility == "gm" and checks[0].character is None
    _advance(as_user(gm), cc, "turn", 3)
    torch.refresh_from_db()
    assert torch.quantity == carried - 1 and torch.data["lit"] is False and torch.data["burned"] == 0
    assert Roll.objects.filter(procedure="encounter_check").count() == 3
    assert wren.changes.filter(what__startswith="Time passes").count() == 2  # in the sheet's history


def test_fell_days_eat_rations_then_deprive(campaign, hero, gm, as_user):
    """Seed 000, Deprivation: a bundle of rations feeds three days; a day unfed deprives, the next adds fatigue."""
    rations = hero.items.get(kind="ration")
    assert rations.quantity == 1  # the starting kit's one bundle
    _advance(as_user(gm), campaign, "day", 2)
    rations.refresh_from_db()
    assert rations.data["eaten"] == 2
    _advance(as_user(gm), campaign, "day", 1)
    assert not Item.objects.filter(pk=rations.pk).exists()
    _advance(as_user(gm), campaign, "day", 2)
    hero.refresh_from_db()
    assert hero.state["deprived"] is True and hero.state["days_deprived"] == 1
    assert not Roll.objects.filter(procedure="luck").exists()  # days roll no luck die
    _advance(as_user(gm), campaign, "exploration", 2)
    assert Roll.objects.filter(procedure="luck").count() == 2


@pytest.mark.parametrize(
    ("unit", "count", "message"),
    [
        ("turn", -1, "Time only moves forward"),
        ("turn", 0, "Time only moves forward"),
        ("turn", 31, "at most 30"),
        ("year", 1, "Select a valid choice"),
    ],
)
def test_bad_advances_are_refused_and_change_nothing(unit, count, message, cc, wren, gm, as_user):
    response = _advance(as_user(gm), cc, unit, count)
    assert response.status_code == 422 and message in text_of(response)
    cc.refresh_from_db()
    assert cc.game_minutes == 0 and not Roll.objects.filter(campaign=cc, character=None).exists()


@pytest.mark.parametrize(
    ("who", "read", "write"),
    [("gm", 200, 200), ("player", 200, 404), ("other_player", 200, 404), ("stranger", 404, 404)],
)
def test_clock_urls_permissions(who, read, write, cc, wren, as_user, request):
    client = as_user(request.getfixturevalue(who))
    assert client.get(reverse("campaigns:time", args=[cc.pk])).status_code == read
    response = client.post(reverse("campaigns:time_advance", args=[cc.pk]), {"unit": "turn", "count": 2}, **HTMX)
    assert response.status_code == write
    cc.refresh_from_db()
    assert cc.game_minutes == (20 if who == "gm" else 0)
    page = client.get(reverse("campaigns:time", args=[cc.pk]))
    assert ("data-clock-note" in page.content.decode()) == (who == "gm")  # the GM's checks stay the GM's


def test_travel_rolls_from_the_table_are_the_gms(cc, wren, gm, as_user):
    """Spec §002.7: getting lost, from the table's own form, logged as the GM's roll for no character."""
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    url = reverse("campaigns:table_roll", args=[cc.pk, "travel"])
    response = client.post(url, form_fields(page, url, difficult="on", visibility="gm"), **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.get(procedure="travel")
    assert roll.character is None and roll.roller == gm and roll.visibility == "gm"
    assert roll.odds == {"lost": "1/3", "on_course": "2/3"}
