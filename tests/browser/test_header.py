"""The site header is one line on a 375 px phone, with nothing scrolled out of sight (issue 11, phone ergonomics):
the account's links (change password, admin, log out) fold into a menu."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"
ONE_LINE = 56  # px: one row of 44 px targets and the header's edge; two rows would be about 100


def _measure(page) -> dict:
    return page.evaluate(
        """() => {
            const nav = document.querySelector('.site-header nav');
            const items = [...nav.children].filter(el => el.offsetParent !== null && el.getBoundingClientRect().width);
            return {
                height: document.querySelector('.site-header').getBoundingClientRect().height,
                overflow: nav.scrollWidth - nav.clientWidth,
                rows: new Set(items.map(el => {
                    const box = el.getBoundingClientRect();
                    return Math.round(box.top + box.height / 2);
                })).size,
                right: Math.max(...items.map(el => el.getBoundingClientRect().right)),
            };
        }"""
    )


@pytest.mark.parametrize("size", [(375, 812), (1280, 800)])
def test_the_header_is_one_line_and_the_account_menu_works(new_page, django_user_model, size):
    # A staff member with a long name: the most the header ever holds.
    django_user_model.objects.create_user("bartholomew_the_gm", password=PASSWORD, is_staff=True)
    page = new_page(*size)
    page.goto("/accounts/login/")
    logged_out = _measure(page)
    log_in(page, "bartholomew_the_gm", PASSWORD)
    header = _measure(page)
    print(f"header at {size[0]}x{size[1]}: {header['height']:.0f} px logged in, {logged_out['height']:.0f} px out")
    for measured in (logged_out, header):
        assert measured["rows"] == 1 and measured["height"] <= ONE_LINE, measured
        assert measured["overflow"] <= 0 and measured["right"] <= size[0], measured

    menu = page.locator(".account-menu")
    expect(menu.get_by_role("link", name="Admin")).to_be_hidden()
    menu.locator("summary").click()
    expect(menu.get_by_role("link", name="Change password")).to_be_visible()
    expect(menu.get_by_role("link", name="Admin")).to_be_visible()
    box = menu.locator(".menu-panel").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], box  # the open menu stays on the screen
    page.keyboard.press("Escape")
    expect(menu.get_by_role("link", name="Change password")).to_be_hidden()
    menu.locator("summary").click()
    page.mouse.click(5, 400)  # a click elsewhere closes it
    expect(menu.get_by_role("link", name="Change password")).to_be_hidden()
    menu.locator("summary").click()
    menu.get_by_role("button", name="Log out").click()
    expect(page.locator(".site-header").get_by_role("link", name="Log in")).to_be_visible()
