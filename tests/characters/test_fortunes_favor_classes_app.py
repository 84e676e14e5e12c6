"""Fortune's Favor's class features through the real pages (issue 30): the player uses them from the sheet's own
forms, the sheet shows what they changed, bad input is refused with a sentence and changes nothing, and only
those who may edit a character use its features. Seed 003 (../shared/seeds/003_eeb4db86843669ac.txt) with the
1b class data (RulesGraph @ 6cff1a6)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character, Roll
from rules import dice
from rules.data import fortunes_favor as data
from rules.dice import ScriptedRandom
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor.state import health_max, stamina_max
from tests.conftest import make_character
from tests.pages import BOTH, HTMX, field_text, post, refused, roll_form, text_of, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(gm, player, other_player):
    campaign = Campaign.objects.create(name="The Gilded Road", system="fortunes-favor")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


def become(character: Character, cls: str, level: int = 1, **changes) -> Character:
    state = SYSTEM.default_state()
    state.update({"class": cls, "level": level, "armour": "none", "attack_stat": data.CLASSES[cls]["attack_stats"][0]})
    state["stats"] = {"mettle": 3, "agility": 2, "intellect": 1, "heart": 2}
    state.update(changes)
    state["health"] = changes.get("health", health_max(state))
    state["stamina"] = changes.get("stamina", stamina_max(state))
    character.state = SYSTEM.validate_state(state)
    character.save(update_fields=["state"])
    return character


@pytest.fixture
def hero(player, table):
    return make_character(player, table, system="fortunes-favor", name="Sable")


@BOTH
def test_beastmaster_1_beast_bond_from_the_sheet_shows_the_beast(as_user, player, hero, htmx):
    """Beastmaster 1, Beast Bond: picked on the sheet's Use a class feature form; the sheet then shows the beast's
    numbers and its Health track."""
    become(hero, "BEASTMASTER", 2)
    client = as_user(player)
    post(client, *roll_form(client, hero, "feature", feature="Beast Bond", beast="LARGE"), htmx)
    hero.refresh_from_db()
    assert hero.state["feats"]["beast"] == "LARGE" and hero.state["feats"]["beast_health"] == 19
    page = client.get(hero.get_absolute_url())
    beast = field_text(page, "data-ff", "beast")
    assert "Large beast" in beast and "19" in beast and "1d8+4" in beast
    assert "Beast's Health" in text_of(page)
    assert Roll.objects.filter(character=hero, procedure="feature").exists()


@BOTH
def test_brawler_6_slab_of_beef_without_favor_is_refused_and_changes_nothing(as_user, player, hero, htmx):
    """Brawler 6, Slab of Beef spends Fortune's Favor: with none, a sentence and no change."""
    become(hero, "BRAWLER", 6)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "feature", feature="Slab of Beef"), htmx)
    refused(response, htmx, "Slab of Beef spends Fortune's Favor, and you have none.")
    assert unchanged(hero) == before


def test_maverick_2_lucky_shot_from_the_attack_form(as_user, player, hero, monkeypatch):
    """Maverick 2, Lucky Shot: the attack form offers it; Fortune's Favor is spent and 2d6 added on a hit."""
    become(hero, "MAVERICK", 2, fortunes_favor=1)
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([15, 4, 3, 5]))
    client = as_user(player)
    url, fields = roll_form(client, hero, "attack", armor="12", maneuver="Lucky Shot")
    odds = client.get(reverse("characters:odds", args=[hero.pk, "attack"]), fields, **HTMX)
    assert odds.status_code == 200
    client.post(url, fields, **HTMX)
    roll = Roll.objects.get(character=hero, procedure="attack")
    assert roll.outcome == "hit" and "14 damage" in roll.summary
    hero.refresh_from_db()
    assert hero.state["fortunes_favor"] == 0


def test_only_those_who_edit_a_character_use_its_features(as_user, gm, player, other_player, stranger, hero):
    """A player uses only their own character's features; the GM uses any at the table; nobody else."""
    become(hero, "HYPEMAN", 1)
    url, fields = roll_form(as_user(gm), hero, "feature", feature="Build Hype")
    for who in (other_player, stranger):
        response = as_user(who).post(url, fields, **HTMX)
        assert response.status_code in (403, 404)
    hero.refresh_from_db()
    assert hero.state["feats"]["hype"] == 0
    assert as_user(gm).post(url, fields, **HTMX).status_code == 200
    hero.refresh_from_db()
    assert hero.state["feats"]["hype"] == 1


@pytest.mark.parametrize("cls", list(data.CLASSES))
def test_every_class_sheet_renders_its_features_within_the_query_budget(
    as_user, player, hero, cls, django_assert_max_num_queries
):
    """Each class's sheet shows its features with what Lantern does with them, in a fixed number of queries."""
    become(hero, cls, 8)
    client = as_user(player)
    client.get(hero.get_absolute_url())
    with django_assert_max_num_queries(14):
        page = client.get(hero.get_absolute_url())
    features = field_text(page, "data-ff", "class-features")
    for _, name, _, _ in data.CLASSES[cls]["features"]:
        assert name.replace("'", "") in features.replace("'", "").replace("’", "")


@BOTH
def test_use_a_class_feature_posts_each_features_own_options(as_user, player, hero, htmx):
    """Issue 36 item 4. Beastmaster 5: the form drawn posts as it is (Beast Bond, the first beast) and bonds it; its
    Ultimate Tag Team select picks a maneuver. Hype Man 5: no option select at all, and an option sent anyway is
    refused with a sentence, changing nothing."""
    become(hero, "BEASTMASTER", 5)
    client = as_user(player)
    url, fields = roll_form(client, hero, "feature")
    assert fields["feature-feature"] == ["Beast Bond"] and fields["feature-beast"] == ["LARGE"]
    assert fields["feature-tag_move"] == ["Entangling Strike"]
    assert "feature-option" not in fields
    post(client, url, fields, htmx)
    hero.refresh_from_db()
    assert hero.state["feats"]["beast"] == "LARGE"
    post(client, *roll_form(client, hero, "feature", feature="Ultimate Tag Team", tag_move="Savage Rend"), htmx)
    hero.refresh_from_db()
    assert hero.state["feats"]["picks"] == {"Ultimate Tag Team": ["Savage Rend"]}

    become(hero, "HYPEMAN", 5)
    url, fields = roll_form(client, hero, "feature")
    assert sorted(k for k in fields if k.startswith("feature-")) == ["feature-ally", "feature-feature"]
    before = unchanged(hero)
    response = post(client, url, {**fields, "feature-option": ["end"]}, htmx)
    refused(response, htmx, "Use a class feature has no option option.")
    assert unchanged(hero) == before
