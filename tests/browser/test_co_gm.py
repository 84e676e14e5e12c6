"""Issue 42 in Chromium: the owner names a co-GM from the members list; the co-GM starts a session of the owner's
world with the characters who came (the roster is larger than the evening) and makes a roll only GMs see, which the
owner's open table shows live; the session says which GM ran it."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership, PlaySession
from characters.services import character_create
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"


def test_a_co_gm_runs_a_session_of_the_owners_world_and_the_owner_sees_their_gm_roll_live(new_page, django_user_model):
    owner_user = django_user_model.objects.create_user("owner_o", password=PASSWORD)
    co_gm_user = django_user_model.objects.create_user("cogm_o", password=PASSWORD)
    player = django_user_model.objects.create_user("player_o", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=owner_user, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=co_gm_user)
    Membership.objects.create(campaign=campaign, user=player)
    for name, seed in (("Wren", 7), ("Ash", 11)):
        character_create(
            owner=player, system="fell-draft", choices={"name": name}, campaign=campaign, rng=random.Random(seed)
        )

    owner = new_page(width=1280, height=900)
    log_in(owner, "owner_o", PASSWORD)
    owner.goto(f"/campaigns/{campaign.pk}/")
    owner.locator('#members [data-co-gm="cogm_o"]').click()
    expect(owner.locator(f"#member-{co_gm_user.pk} .badge")).to_have_text("Co-GM")
    assert Membership.objects.get(campaign=campaign, user=co_gm_user).role == Membership.Role.CO_GM

    co_gm = new_page(width=1280, height=900)
    log_in(co_gm, "cogm_o", PASSWORD)
    co_gm.goto(f"/campaigns/{campaign.pk}/")
    expect(co_gm.locator("main")).to_contain_text("you are a co-GM")
    expect(co_gm.locator("#members [data-co-gm]")).to_have_count(0)  # only the owner names co-GMs
    sessions = co_gm.locator("#sessions")
    sessions.locator('[data-present-pick="Ash"]').uncheck()  # Ash stays home tonight
    expect(sessions.get_by_label("Run by")).to_have_value(str(co_gm_user.pk))
    sessions.get_by_role("button", name="Start a session").click()
    expect(sessions.locator('[data-session-going="1"] [data-session-gm]')).to_have_text("cogm_o")
    # The owner's open table learns of it live.
    expect(owner.locator('#sessions [data-session-going="1"] [data-session-gm]')).to_have_text("cogm_o")

    roll_form = co_gm.locator("#gm-roll")
    roll_form.locator("select[name=visibility]").select_option("gm")
    roll_form.get_by_role("button", name="Roll").click()
    gm_line = owner.locator("#log li", has_text="GM only")
    expect(co_gm.locator("#log li", has_text="GM only")).to_have_count(1)
    expect(gm_line).to_have_count(1)  # live on the owner's page, without a reload
    expect(gm_line).to_contain_text("cogm_o")  # which GM rolled it

    session = PlaySession.objects.get(campaign=campaign)
    assert session.gm == co_gm_user and [p["name"] for p in session.present] == ["Wren"]
    co_gm.goto(f"/campaigns/{campaign.pk}/sessions/1/")
    expect(co_gm.locator("[data-present]")).to_have_text("Wren (player_o)")
    expect(co_gm.locator("dd[data-session-gm]")).to_have_text("cogm_o")
