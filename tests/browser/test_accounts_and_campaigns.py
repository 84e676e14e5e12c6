"""A person signs up, starts a campaign, shares the invite; a friend signs up and joins through it."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import show_part, sign_up


def test_gm_invites_a_friend_and_both_see_each_other(new_page):
    gm_page = new_page()
    sign_up(gm_page, "morgan")
    gm_page.get_by_label("Campaign name").fill("The Drowned Abbey")
    gm_page.get_by_label("Game system").select_option(label="Chaos & Conquest")
    gm_page.get_by_role("button", name="Create campaign").click()
    expect(gm_page.get_by_role("heading", name="The Drowned Abbey")).to_be_visible()
    invite_link = gm_page.get_by_label("Invite link").input_value()
    assert "/campaigns/join/" in invite_link

    friend_page = new_page(width=375, height=740)  # a phone
    friend_page.goto(invite_link)
    friend_page.wait_for_url("**/accounts/login/**")
    friend_page.get_by_role("link", name="Create an account").click()
    friend_page.get_by_label("Username").fill("robin")
    friend_page.get_by_label("Password:", exact=True).fill("lantern-light-42")
    friend_page.get_by_label("Password confirmation").fill("lantern-light-42")
    friend_page.get_by_role("button", name="Sign up").click()
    friend_page.get_by_role("button", name="Join the table").click()
    expect(friend_page.get_by_role("heading", name="The Drowned Abbey")).to_be_visible()
    show_part(friend_page, "notes")  # on a phone the table shows one part at a time; who sits there is under Notes
    expect(friend_page.locator('[data-username="morgan"]')).to_be_visible()

    gm_page.reload()
    expect(gm_page.locator('[data-username="robin"]')).to_be_visible()
