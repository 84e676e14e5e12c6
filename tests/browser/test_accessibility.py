"""axe-core (through axe-playwright-python, which ships it) on every kind of page, in light and dark (issue 11).

No violation of impact serious or critical is allowed: on each system's sheet (every part of the phone layout:
Sheet, Roll, Gear, Log, with rolls in the log so kept and dropped dice both show) and its table page, the two
lists, the creation form, the login page, a form shown with its errors, and a roll control on a page of its
own. Each check prints its counts by impact (run with ``-s`` to read them).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from playwright.sync_api import expect

from characters.services import character_roll
from tests.browser.conftest import log_in, show_part
from tests.browser.test_play_surface import PASSWORD
from tests.browser.test_play_surface import _table as play_table

PHONE = (375, 812)
DESKTOP = (1280, 800)
SCHEMES = ("light", "dark")
BLOCKING = {"serious", "critical"}
# A roll of each system that keeps some dice and drops others: both looks are checked in the log.
ROLLS = {
    "fell-draft": ("test", {"ability": "BOD", "advantage": 1}),
    "chaos-conquest": ("save", {"attribute": "STR", "advantage": True}),
}
AXE = Axe()


def check(page, name: str) -> None:
    """Run axe on what the page shows now; fail on any serious or critical violation, naming each."""
    results = AXE.run(page)
    violations = results.response["violations"]
    counts = Counter(v["impact"] for v in violations)
    elements = sum(len(v["nodes"]) for v in violations)
    summary = ", ".join(f"{n} {impact}" for impact, n in sorted(counts.items())) or "0"
    print(f"axe {name}: {summary} violation(s) on {elements} element(s)")
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, results.generate_report()


def _table(django_user_model, system: str):
    """The play surface's table (a GM, a player and their Wren), with two rolls of Wren's in the log."""
    campaign, hero, _, player = play_table(django_user_model, system=system)
    procedure, params = ROLLS[system]
    for seed in (1, 2):
        character_roll(character_id=hero.pk, procedure=procedure, params=params, by=player, rng=random.Random(seed))
    return campaign, hero


def _check_sheet(page, hero, name: str) -> None:
    page.goto(f"/characters/{hero.pk}/")
    page.locator("#log .roll-log .die").first.wait_for(state="attached")
    # The result card of a quick roll shows on the first screen: check it too.
    page.locator("[data-quick-roll] button").first.click()
    page.locator("#quick-result .roll-result").wait_for()
    for part in ("sheet", "roll", "gear", "log"):
        show_part(page, part)
        # Every procedure, equipment and hiring form open, so each control is checked, not only the summaries.
        page.evaluate(f"document.querySelectorAll('#part-{part} details').forEach(d => d.open = true)")
        # Closed roll controls load when opened: wait until every one has.
        expect(page.locator(f"#part-{part} .control-loader")).to_have_count(0)
        check(page, f"{name}/{part}")
    # A roll control on a page of its own (where the sheet's placeholders lead without JavaScript).
    page.goto(reverse("characters:control", args=[hero.pk, ROLLS[hero.system][0]]))
    check(page, f"{name}/control page")


def _check_table(page, campaign, hero, name: str) -> None:
    page.goto(f"/campaigns/{campaign.pk}/")
    page.locator(f"#card-{hero.pk}").wait_for()
    page.evaluate("document.querySelectorAll('main details').forEach(d => d.open = true)")
    check(page, name)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("view", ["phone sheet", "table"])
@pytest.mark.parametrize("system", ROLLS)
def test_a_systems_sheet_and_table_have_no_serious_violation(new_page, django_user_model, system, view, scheme):
    """The player's sheet on a phone, part by part; the GM's table on a desktop."""
    campaign, hero = _table(django_user_model, system)
    name = f"{system} {view} {scheme}"
    if view == "table":
        page = new_page(*DESKTOP, color_scheme=scheme)
        log_in(page, "gm_play", PASSWORD)
        _check_table(page, campaign, hero, name)
    else:
        page = new_page(*PHONE, color_scheme=scheme)
        log_in(page, "player_play", PASSWORD)
        _check_sheet(page, hero, name)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lists_forms_and_login_have_no_serious_violation(new_page, django_user_model, scheme):
    _table(django_user_model, "fell-draft")  # the lists hold a campaign and a character
    page = new_page(*PHONE, color_scheme=scheme)
    page.goto("/accounts/login/")
    check(page, f"login {scheme}")
    log_in(page, "player_play", PASSWORD)
    page.goto("/characters/")
    check(page, f"character list {scheme}")
    page.goto("/campaigns/")
    check(page, f"campaign list {scheme}")
    page.locator(".account-menu summary").click()
    check(page, f"account menu open {scheme}")
    for system in ROLLS:
        page.goto(f"/characters/new/?system={system}")
        check(page, f"{system} creation form {scheme}")
    # A form shown with its errors: a campaign with no name.
    page.goto("/campaigns/")
    page.get_by_role("button", name="Create campaign").click()
    page.locator(".errorlist").first.wait_for()
    check(page, f"form with errors {scheme}")
    # And a creation form refused for its empty name (Chaos & Conquest has no name tables).
    page.goto("/characters/new/?system=chaos-conquest")
    page.get_by_role("button", name="Create").click()
    page.locator(".has-error #id_new_name").wait_for()
    check(page, f"creation form with errors {scheme}")
