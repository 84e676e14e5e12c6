"""The one-query permission reads agree with the general ones they stand in for (who sees and edits what)."""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from characters.models import Roll
from characters.selectors import (
    character_for,
    characters_editable_by,
    characters_visible_to,
    rolls_at_table,
    rolls_visible_to,
)
from tests.conftest import make_character

PEOPLE = ["gm", "player", "other_player", "stranger"]


@pytest.fixture
def table(gm, player, other_player, stranger, campaign):
    hero = make_character(player, campaign, name="Wren")
    loner = make_character(stranger, None, name="Loner")
    for roller, character in ((gm, None), (player, hero), (other_player, None), (stranger, None)):
        for visibility in Roll.Visibility.values:
            Roll.objects.create(
                campaign=campaign,
                character=character,
                roller=roller,
                label="Test",
                procedure="test",
                outcome="pass",
                visibility=visibility,
            )
    return {"gm": gm, "player": player, "other_player": other_player, "stranger": stranger}, hero, loner


@pytest.mark.parametrize("who", PEOPLE)
def test_character_for_agrees_with_the_visible_and_editable_sets(who, table):
    people, hero, loner = table
    user = people[who]
    for character in (hero, loner):
        found = character_for(user, character.pk)
        assert (found is not None) == characters_visible_to(user).filter(pk=character.pk).exists()
        editable = characters_editable_by(user).filter(pk=character.pk).exists()
        assert (character_for(user, character.pk, edit=True) is not None) == editable
        if found is not None:
            assert found.character == character and found.viewer.user_id == user.pk
            assert found.viewer.can_edit == editable


@pytest.mark.parametrize("who", PEOPLE)
def test_rolls_at_table_are_the_rolls_visible_there(who, table):
    people, hero, _ = table
    user = people[who]
    seat = Membership.objects.filter(campaign_id=hero.campaign_id, user=user).values_list("role", flat=True).first()
    expected = set(rolls_visible_to(user).filter(campaign_id=hero.campaign_id).values_list("pk", flat=True))
    assert set(rolls_at_table(user, hero.campaign_id, seat).values_list("pk", flat=True)) == expected
    assert expected  # everyone sees at least their own rolls here
