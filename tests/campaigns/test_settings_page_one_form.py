"""The settings page is one form (issue 36, item 12): the dice setting's radios belong to the rule settings' form, so
either Save saves both changes, and a refusal of either saves neither, with its sentence. (The page in Chromium:
tests/browser/test_keyboard_and_controls.py.)"""

from __future__ import annotations

from django.urls import reverse

from campaigns.models import RuleSettingChange
from tests.pages import HTMX, text_of


def _save(client, campaign, **data):
    return client.post(reverse("campaigns:settings", args=[campaign.pk]), data)


def test_the_page_draws_the_dice_radios_and_both_buttons_in_the_settings_form(cc, gm, as_user):
    page = as_user(gm).get(reverse("campaigns:settings", args=[cc.pk])).content.decode()
    assert page.count('name="hand_dice" value="') == 3 and page.count('form="settings-form"') == 4
    assert 'id="settings-form"' in page and "Save the dice setting" in page and "Save settings" in page


def test_either_save_saves_the_rule_and_the_dice_together(cc, gm, as_user):
    """Seed 002's C&C: its one rule setting, scars lowering attributes for good, changed with the dice."""
    response = _save(as_user(gm), cc, hand_dice="players")  # the box unticked: the rule turned off
    assert response.status_code == 302
    cc.refresh_from_db()
    assert cc.hand_dice == "players" and cc.rule_settings == {"scar_losses_permanent": False}
    assert set(RuleSettingChange.objects.filter(campaign=cc).values_list("key", flat=True)) == {
        "hand_dice",
        "scar_losses_permanent",
    }


def test_a_refused_dice_value_saves_neither_and_says_why(cc, gm, as_user):
    client = as_user(gm)
    response = client.post(reverse("campaigns:settings", args=[cc.pk]), {"hand_dice": "dragons"}, **HTMX)
    assert "Choose who rolls the dice" in text_of(response)
    cc.refresh_from_db()
    assert cc.hand_dice == "server" and cc.rule_settings == {}
    assert not RuleSettingChange.objects.filter(campaign=cc).exists()


def test_a_player_cannot_save_the_settings_page(cc, player, as_user):
    assert _save(as_user(player), cc, hand_dice="everyone", scar_losses_permanent="yes").status_code == 404
    cc.refresh_from_db()
    assert cc.hand_dice == "server"
