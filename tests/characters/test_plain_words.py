"""Issue 26, the player's side: outcomes in plain words, a log people read, a kit that lets the first night happen.

Every request posts what the page renders (tests.pages.form_fields)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.models import CatalogueItem, Character, Item, Roll
from rules import SYSTEMS
from tests.conftest import make_character, make_table
from tests.pages import form_fields, text_of, track_text


@pytest.fixture
def table(gm, player):
    return make_table("chaos-conquest", gm, player)


def _sheet(client, character: Character):
    return client.get(character.get_absolute_url())


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_creation_is_one_log_line_in_words_without_a_chip_per_die(as_user, gm, player, system):
    """Creation, made through its own form: one line in the log, its sentences, and no d1/d3/d5 chips."""
    table = make_table(system, gm, player)
    client = as_user(player)
    url = reverse("characters:create")
    page = client.get(url, {"system": system, "campaign": table.pk})
    fields = form_fields(page, url, name="Wren")
    assert client.post(url, fields).status_code == 302
    character = Character.objects.get(owner=player)
    (roll,) = Roll.objects.filter(character=character)
    assert roll.dice == [] and roll.summary
    log = re.search(r'<ul class="plain roll-log".*?</ul>', _sheet(client, character).content.decode(), re.S)
    assert log is not None
    assert log.group(0).count('class="roll"') == 1 and 'class="die' not in log.group(0)
    assert "spec §" not in roll.summary and "_" not in roll.summary


def test_a_new_chaos_conquest_character_can_rest_the_first_night(as_user, player, table):
    """character-creation.md's kit plus three days' rations: the night's rest eats one and happens."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    client = as_user(player)
    action = reverse("characters:roll", args=[hero.pk, "rest"])
    response = client.post(action, form_fields(_sheet(client, hero), action, kind="night"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200, text_of(response)
    assert "Ate from Rations (3 days)" in text_of(response)
    hero.refresh_from_db()
    assert hero.items.get(name="Rations (3 days)").data["days"] == 2


def test_a_track_never_reads_below_zero(as_user, player, table):
    """Stamina stored past zero (the seed counts harm past it) reads 0/2, never -18/2."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    hero.state = {**hero.state, "stamina": -18, "stamina_max": 2, "status": "dead"}
    hero.save(update_fields=["state"])
    response = _sheet(as_user(player), hero)
    assert track_text(response, "stamina") == "0/2"
    assert "−18" not in text_of(response) and "-18" not in text_of(response)


def test_harmful_odds_name_what_is_at_stake(as_user, player, table):
    """Damage that can kill reads "dies: 50 %", never "50 % to succeed"; a test still reads "to succeed"."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    hero.state = {**hero.state, "stamina": 1, "stamina_max": 1, "status": "fine"}
    hero.save(update_fields=["state"])
    client = as_user(player)
    odds = client.get(reverse("characters:odds", args=[hero.pk, "take_damage"]), {"take_damage-amount": "5"})
    words = text_of(odds)
    assert "dies:" in words and "to succeed" not in words
    save = client.get(reverse("characters:odds", args=[hero.pk, "save"]))
    assert "to succeed" in text_of(save)


def test_the_dead_read_as_a_result_not_an_error(as_user, player, table):
    """After death, "The dead take no more damage." is where things stand: no alert, in the odds or the answer."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    client = as_user(player)
    page = _sheet(client, hero)
    action = reverse("characters:roll", args=[hero.pk, "take_damage"])
    fields = form_fields(page, action, amount="20", armour=None)
    hero.state = {**hero.state, "stamina": -18, "status": "dead"}
    hero.save(update_fields=["state", "updated_at"])  # as any save of the row does: kept sheets follow it
    odds = client.get(reverse("characters:odds", args=[hero.pk, "take_damage"]), HTTP_HX_REQUEST="true")
    assert "The dead take no more damage." in text_of(odds)
    assert 'role="alert"' not in odds.content.decode() and "data-settled" in odds.content.decode()
    answer = client.post(action, fields, HTTP_HX_REQUEST="true")
    assert answer.status_code == 422  # nothing happened
    assert "The dead take no more damage." in text_of(answer) and 'role="alert"' not in answer.content.decode()


# --- roll where the thing is ----------------------------------------------------------------------------------


def _taps(page: str) -> list[tuple[str, dict[str, str], str]]:
    """Each roll-here link of the page: its procedure, the inputs it sets, its words."""
    found = []
    for attrs, words in re.findall(r'<a class="roll-here" ([^>]*)>(.*?)</a>', page):
        procedure = re.search(r'data-roll-to="([^"]*)"', attrs).group(1)
        sets = dict(re.findall(r'data-set-([\w-]+)="([^"]*)"', attrs))
        found.append((procedure, sets, words))
    return found


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_a_stat_and_a_weapon_on_the_sheet_name_a_roll_the_panel_holds(as_user, gm, player, other_player, system):
    """Each stat (and a weapon where the system attacks with one) is a button naming its roll and inputs; that
    roll is in the Roll part, and its loaded form has those inputs with those values. Others see plain words."""
    table = make_table(system, gm, player, other_player)
    hero = make_character(player, table, system=system)
    client = as_user(player)
    page = _sheet(client, hero).content.decode()
    taps = _taps(page)
    procedures = {procedure for procedure, _, _ in taps}
    assert len(taps) >= 3, taps
    expected_items = system != "fortunes-favor"  # Fortune's Favor attacks with the class's weapons, not one item
    weapons = hero.items.filter(kind="weapon")
    if expected_items and weapons.exists():
        assert "attack" in procedures, taps
    for procedure, sets, _words in taps:
        assert f'data-procedure="{procedure}"' in page.split('id="roll-panel"', 1)[1]
        control = client.get(reverse("characters:control", args=[hero.pk, procedure]), HTTP_HX_REQUEST="true")
        body = control.content.decode()
        for name, value in sets.items():
            field = f'name="{procedure}-{name}"'
            assert field in body, (procedure, name)
            if value and value != "on":
                assert f'value="{value}"' in body, (procedure, name, value)
    assert _taps(_sheet(as_user(other_player), hero).content.decode()) == []


def test_the_roll_part_puts_errands_apart_with_the_words_of_what_they_do(as_user, player, gm):
    """Rolls of the moment first; resting, learning, paying under Errands; their buttons say "Rest", "Learn";
    Fell (draft) shops in the equipment picker only."""
    table = make_table("fell-draft", gm, player)
    hero = make_character(player, table, system="fell-draft")
    client = as_user(player)
    page = _sheet(client, hero).content.decode()
    panel = page.split('id="roll-panel"', 1)[1].split("</section>", 1)[0]
    everyday, errands = panel.split('id="errands-title"', 1)
    assert 'data-procedure="test"' in everyday and 'data-procedure="attack"' in everyday
    assert 'data-procedure="rest"' in errands and 'data-procedure="learn_spell"' in errands
    assert 'data-procedure="rest"' not in everyday and 'data-procedure="buy"' not in page
    assert "equipment list" in text_of(_sheet(client, hero))
    rest = client.get(reverse("characters:control", args=[hero.pk, "rest"]), HTTP_HX_REQUEST="true")
    assert '<button type="submit">Rest</button>' in rest.content.decode()
    learn = client.get(reverse("characters:control", args=[hero.pk, "learn_skill"]), HTTP_HX_REQUEST="true")
    assert '<button type="submit">Learn</button>' in learn.content.decode()
    test = client.get(reverse("characters:control", args=[hero.pk, "test"]), HTTP_HX_REQUEST="true")
    assert '<span class="when-rolled">Roll</span>' in test.content.decode()
    # the errand still does its work from the form the page renders
    action = reverse("characters:roll", args=[hero.pk, "learn_skill"])
    answer = client.post(action, form_fields(_sheet(client, hero), action, other="Sailing"), HTTP_HX_REQUEST="true")
    assert answer.status_code == 200, text_of(answer)
    hero.refresh_from_db()
    assert "sailing" in hero.state["skills"]


# --- lists people trust ----------------------------------------------------------------------------------------


def _picker(client, hero, q=""):
    return client.get(reverse("characters:catalogue", args=[hero.pk]), {"q": q}, HTTP_HX_REQUEST="true")


def test_searching_torch_finds_the_torch_first(as_user, player, table):
    hero = make_character(player, table, system="chaos-conquest")
    names = re.findall(r'<li data-entry="([^"]+)"', _picker(as_user(player), hero, "torch").content.decode())
    assert names[0] == "Torch" and "Common item (rope, torch, saw...)" in names


def test_the_chaos_conquest_picker_offers_nothing_that_is_bought_into_nothing(as_user, player, table):
    """Buildings and roads are not carried or hired: not in the list; a service is marked as not carried."""
    hero = make_character(player, table, system="chaos-conquest")
    client = as_user(player)
    for words in ("road", "watchtower", "castle"):
        assert "data-entry" not in _picker(client, hero, words).content.decode(), words
    assert not CatalogueItem.objects.filter(system="chaos-conquest", group="Buildings", available=True).exists()


def test_the_picker_warns_before_a_purchase_crosses_the_slot_limit(as_user, gm, player):
    """Fell (late) at 7 of 8 slots: "1 slot free (7/8 used)", and a 2-slot item says what going over does."""
    table = make_table("fell-late", gm, player)
    hero = make_character(player, table, system="fell-late")
    hero.items.all().delete()
    weak = {**hero.state["attributes"], "STR": {"die": 4, "original": 4}}
    hero.state = {**hero.state, "coins": 0, "attributes": weak}
    hero.save()
    for n in range(7):
        Item.objects.create(character=hero, name=f"Stone {n}", kind="gear", slots=1, position=n)
    client = as_user(player)
    picker = _picker(client, hero, "")
    words = text_of(picker)
    assert "1 slot free (7/8 used)" in words and "9 slots free" not in words
    body = picker.content.decode()
    crossing = re.search(r"data-over>([^<]+)<", body)
    assert crossing is not None
    assert crossing.group(1).startswith("Takes you to 9/8 slots") or crossing.group(1).startswith("Takes you to 10/8")
    assert "HP count as zero" in crossing.group(1)


# --- a log people read --------------------------------------------------------------------------------------------

JARGON = (
    re.compile(r"spec §|\[REC\]|seed \d{3}"),  # references to the rules' sources
    re.compile(r"\b[a-z]+_[a-z_]+\b"),  # an internal key (hp_max, no_harm)
    re.compile(r"\b\d+/\d+:"),  # the book's "15/10:" shorthand for a test's two points
    re.compile(r"\b(eaten|burned|lp|turns) \d"),  # an item's key and number
    re.compile(r"\(s\)|\b1 (hours|days|miles)\b|→ (hp only|short|start)\b"),  # "day(s)", "1 hours", a key as outcome
)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_every_roll_of_the_roll_part_logs_words_a_player_reads(as_user, gm, player, system):
    """Each control of the Roll part, posted as the page renders it at its defaults: its log line (label,
    outcome, summary) and the inventory's notes hold no spec reference, internal key or shorthand."""
    table = make_table(system, gm, player)
    hero = make_character(player, table, system=system)
    client = as_user(player)
    page = _sheet(client, hero).content.decode()
    keys = re.findall(r'<details class="roll-control" data-procedure="([^"]+)"', page.split('id="roll-panel"', 1)[1])
    assert keys
    for key in keys:
        action = reverse("characters:roll", args=[hero.pk, key])
        client.post(action, form_fields(_sheet(client, hero), action), HTTP_HX_REQUEST="true")
    log = re.search(r'<ul class="plain roll-log".*?</ul>', _sheet(client, hero).content.decode(), re.S)
    assert log is not None
    rows = re.findall(r"<li[^>]*>.*?</li>", log.group(0), re.S)
    lines = [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]
    assert len(lines) > 3
    items = re.findall(r'<li data-item="[^"]*">(.*?)</li>', _sheet(client, hero).content.decode(), re.S)
    notes = [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in items]
    assert notes
    for words in [*lines, *notes]:
        for pattern in JARGON:
            assert not pattern.search(words), (pattern.pattern, words)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_the_change_box_points_to_the_procedure_that_takes_harm(as_user, gm, player, system):
    """Change never takes a track below 0 (the rules clamp it); beside it, the link to the system's own harm."""
    table = make_table(system, gm, player)
    hero = make_character(player, table, system=system)
    client = as_user(player)
    page = _sheet(client, hero)
    hint = re.search(r"<p class=\"muted note\" data-harm-hint>(.*?)</p>", page.content.decode(), re.S)
    assert hint is not None
    (procedure, _sets, words) = _taps(hint.group(1))[0]
    assert procedure in ("take_harm", "take_damage", "damage") and words
    action = reverse("characters:adjust", args=[hero.pk])
    track = re.search(r'<select id="adjust-key" name="key"><option value="([^"]+)"', page.content.decode()).group(1)
    client.post(action, form_fields(page, action, key=track, delta="-1000"), HTTP_HX_REQUEST="true")
    shown = track_text(_sheet(client, hero), track)
    assert not shown.startswith("-"), shown


def test_over_the_slots_the_gear_part_says_so_too(as_user, gm, player):
    """Fell (late) over its slots: the warning is on the Gear part as well as the Sheet part."""
    table = make_table("fell-late", gm, player)
    hero = make_character(player, table, system="fell-late")
    for n in range(6):
        Item.objects.create(character=hero, name=f"Stone {n}", kind="gear", slots=1, position=20 + n)
    page = _sheet(as_user(player), hero).content.decode()
    gear = page.split('id="part-gear"', 1)[1]
    assert "data-over-slots" in gear and "HP count as zero" in gear


def test_an_action_with_no_dice_says_so_and_its_button_applies_it(as_user, player, table):
    """Chaos & Conquest's End of round rolls nothing: its odds box says so (.certain: the button reads "Apply",
    not "Roll"), when drawn and when its inputs change."""
    hero = make_character(player, table, system="chaos-conquest")
    client = as_user(player)
    control = client.get(reverse("characters:control", args=[hero.pk, "end_round"]), HTTP_HX_REQUEST="true")
    assert '<span class="certain">No dice' in control.content.decode()
    odds = client.get(reverse("characters:odds", args=[hero.pk, "end_round"]), HTTP_HX_REQUEST="true")
    assert '<span class="certain">No dice' in odds.content.decode()
