"""A token made in a real browser on the account's API tokens page opens the API of the running server, and is
refused the moment it is revoked there (issue 28); the page has no serious accessibility violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.test_accessibility import check

PASSWORD = "lantern-light-42"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_token_made_in_the_browser_works_until_revoked(new_page, django_user_model, scheme):
    django_user_model.objects.create_user("tokenmaker", password=PASSWORD)
    page = new_page(375, 812, color_scheme=scheme)
    log_in(page, "tokenmaker", PASSWORD)
    page.locator(".account-menu summary").click()
    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("Dice tray")
    page.get_by_label("It may").select_option("read")
    page.get_by_role("button", name="Make token").click()
    secret = page.get_by_label("The new token").input_value()
    assert secret.startswith("lt_")
    check(page, f"API tokens with a new token {scheme}")
    me = page.request.get("/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert me.status == 200 and me.json()["token"] == "Dice tray"
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("Token revoked")).to_be_visible()
    expect(page.get_by_label("The new token")).to_have_count(0)
    assert page.request.get("/api/me", headers={"Authorization": f"Bearer {secret}"}).status == 401
