"""Fortune's Favor, issue 36 item 4: "Use a class feature" offers each feature's own options, each with a line on
what it does, and a class with none shows no option at all. In Chromium, on a phone (375×812) and a desktop
(1280×800): a Beastmaster 6 sees only the beasts beside Beast Bond, only the four maneuvers beside Ultimate Tag
Team, nothing beside Shared Senses, and bonds a wolf; a Hype Man's form has no option select."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character
from characters.services import character_create
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor.state import health_max, stamina_max
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
SCREENS = {"phone": (375, 812), "desktop": (1280, 800)}


def _character(owner, campaign, name: str, cls: str, level: int) -> Character:
    character, _ = character_create(
        owner=owner,
        system="fortunes-favor",
        choices={"name": name, "class": cls},
        campaign=campaign,
        rng=random.Random(3),
    )
    state = dict(character.state, level=level)
    state["health"], state["stamina"] = health_max(state), stamina_max(state)
    character.state = SYSTEM.validate_state(state)
    character.save(update_fields=["state"])
    return character


def _feature_form(page, character: Character):
    page.goto(character.get_absolute_url())
    show_part(page, "roll")
    control = page.locator('details.roll-control[data-procedure="feature"]')
    control.locator("summary").click()
    form = control.locator("form")
    expect(form.get_by_label("Feature:")).to_be_visible()
    return control, form


def _option_texts(select) -> list[str]:
    return [text.strip() for text in select.locator("option").all_text_contents()]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_each_feature_offers_only_its_own_options(new_page, django_user_model, screen):
    player = django_user_model.objects.create_user(f"opt_{screen}", password=PASSWORD)
    campaign = Campaign.objects.create(name="Fern Hollow", system="fortunes-favor")
    Membership.objects.create(campaign=campaign, user=player)
    keeper = _character(player, campaign, "Keeper", "BEASTMASTER", 6)
    cheer = _character(player, campaign, "Cheer", "HYPEMAN", 5)
    width, height = SCREENS[screen]
    page = new_page(width=width, height=height)
    log_in(page, player.username, PASSWORD)

    control, form = _feature_form(page, keeper)
    feature = form.get_by_label("Feature:")
    beasts = form.get_by_label("Beast (Beast Bond)")
    tag_moves = form.get_by_label("Tag team maneuver (Ultimate Tag Team)")
    expect(feature).to_have_value("Beast Bond")
    expect(beasts).to_be_visible()
    expect(tag_moves).to_be_hidden()  # another feature's options show only beside that feature
    assert _option_texts(beasts) == [
        "Large beast (bear, tiger): Health 16, Armor 12, 1d8+Mettle",
        "Medium beast (wolf, panther): Health 6, Armor 15, 1d6+Agility",
        "Small flying beast (hawk, falcon): Health 4, Armor 15, 1d4+Agility",
        "Small ground beast (badger, snake): Health 4, Armor 15, 1d6+Agility",
    ]
    feature.select_option("Ultimate Tag Team")
    expect(tag_moves).to_be_visible()
    expect(beasts).to_be_hidden()
    maneuvers = _option_texts(tag_moves)
    assert [m.split(":")[0] for m in maneuvers] == [
        "Pick Entangling Strike",
        "Pick Predator's Leap",
        "Pick Protective Pelt",
        "Pick Savage Rend",
    ]
    assert all(len(m.split(": ", 1)[1]) > 20 for m in maneuvers)  # each says what it does
    every = " ".join(_option_texts(form.locator("select")))
    for stranger in ("End the form", "Spinning Lariat", "Bigger Burst", "Absorb", "Big (bear, bull)"):
        assert stranger not in every
    feature.select_option("Shared Senses")  # a feature without options: no option select at all
    expect(beasts).to_be_hidden()
    expect(tag_moves).to_be_hidden()
    feature.select_option("Beast Bond")
    expect(beasts).to_be_visible()
    beasts.select_option(label="Medium beast (wolf, panther): Health 6, Armor 15, 1d6+Agility")
    expect(control.locator(".odds-box")).to_contain_text("No dice decide it")
    form.get_by_role("button", name="Apply").click()
    expect(control.locator(".roll-result")).to_contain_text("your beast is a Medium beast (wolf, panther)")
    keeper.refresh_from_db()
    assert keeper.state["feats"]["beast"] == "MEDIUM"

    _, form = _feature_form(page, cheer)
    labels = [text.strip() for text in form.locator(".field > label").all_inner_texts()]
    assert labels[0] == "Feature:"
    assert not [label for label in labels if "(" in label]  # no option select for a class without options
    assert form.locator("select").count() == 3  # the feature, the ally, and who sees the roll
