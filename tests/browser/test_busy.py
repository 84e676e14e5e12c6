"""A busy server's 503 (core/busy.py) shows its sentence in the page's message area, where a refusal's goes, and
the sheet stays as it was (issue 35, item 11): htmx 2 swaps no 5xx by itself, static/js/lantern.js swaps ours.

The answer is the one the server gives when the database is too busy (``busy_answer`` for an htmx request),
served in place of the real one: a busy database cannot be made on demand in the server process.
"""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from playwright.sync_api import expect

from core.busy import SENTENCE, busy_answer
from tests.browser.conftest import log_in, show_part
from tests.conftest import make_character

PASSWORD = "lantern-light-42"


@pytest.mark.parametrize("size", [(375, 812), (1280, 800)])
def test_a_busy_answer_shows_its_sentence_where_refusals_show_and_changes_nothing(new_page, django_user_model, size):
    player = django_user_model.objects.create_user("player_busy", password=PASSWORD)
    wren = make_character(player, name="Wren")
    busy = busy_answer(RequestFactory().post("/", HTTP_HX_REQUEST="true"))
    page = new_page(*size)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, "player_busy", PASSWORD)
    page.goto(f"/characters/{wren.pk}/")
    show_part(page, "sheet")
    hp = page.locator("[data-track=hp] [data-value]").first
    before = hp.inner_text()
    page.route(
        f"**/characters/{wren.pk}/adjust/",
        lambda route: route.fulfill(status=busy.status_code, headers=dict(busy.items()), body=busy.content),
    )

    page.get_by_role("button", name="HP minus one").click()

    expect(page.locator("#messages .message.error")).to_have_text(SENTENCE)
    expect(page.locator("#messages .message.error")).to_be_visible()
    expect(hp).to_have_text(before)  # the region that asked stays as it was
    expect(page.get_by_role("button", name="HP minus one")).to_be_enabled()
    assert errors == []
