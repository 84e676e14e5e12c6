"""Issue 36 in Chromium, on a phone (375×812) and a desktop (1280×800): the game clock's one control (item 7), the
sheet by keyboard (item 11), and the settings page's forms, uncaught script errors and the GM's seat buttons
(item 12). Each asserts what the page shows."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from campaigns.models import Membership
from characters.models import Roll
from tests.browser.conftest import log_in, show_part
from tests.browser.test_play_surface import PASSWORD
from tests.browser.test_play_surface import _table as play_table

SIZES = {"phone": (375, 812), "desktop": (1280, 800)}


def _opened(new_page, django_user_model, size: str, who: str, where: str):
    """The play table in C&C; ``who`` (gm_play or player_play) logged in on a page of ``size`` at ``where``, a
    path made from the campaign and the hero. The page, the campaign, the hero and the player."""
    campaign, hero, _, player = play_table(django_user_model, system="chaos-conquest")
    page = new_page(*SIZES[size])
    log_in(page, who, PASSWORD)
    page.goto(where.format(campaign=campaign.pk, hero=hero.pk))
    return page, campaign, hero, player


def _errors(page) -> list[str]:
    """Every uncaught error of the page's scripts from now on (what the console shows in red)."""
    seen: list[str] = []
    page.on("pageerror", lambda error: seen.append(f"{page.url}: {error}"))
    return seen


def _open_every_part(page, parts) -> None:
    for part in parts:
        show_part(page, part)
        page.evaluate(f"document.querySelectorAll('[data-part=\"{part}\"] details').forEach(d => d.open = true)")
        expect(page.locator(f'[data-part="{part}"] .control-loader')).to_have_count(0)


@pytest.mark.parametrize("size", SIZES)
def test_the_main_pages_raise_no_uncaught_script_error(new_page, django_user_model, size):
    campaign, hero, _, _ = play_table(django_user_model, system="chaos-conquest")
    gm = new_page(*SIZES[size])
    gm_errors = _errors(gm)
    log_in(gm, "gm_play", PASSWORD)
    player = new_page(*SIZES[size])
    player_errors = _errors(player)
    log_in(player, "player_play", PASSWORD)

    player.goto(f"/characters/{hero.pk}/")
    _open_every_part(player, ("sheet", "roll", "gear", "log"))
    show_part(player, "sheet")
    player.locator("[data-quick-roll] button").first.click()
    expect(player.locator("#quick-result .roll-result")).to_be_visible()
    gm.goto(f"/campaigns/{campaign.pk}/")
    _open_every_part(gm, ("party", "fight", "ask", "roll", "time", "log", "notes"))
    gm.goto(f"/campaigns/{campaign.pk}/settings/")
    expect(gm.get_by_role("heading", name="Rule settings")).to_be_visible()
    for page in (gm, player):
        for path in ("/campaigns/", "/characters/", "/characters/new/", f"/characters/{hero.pk}/history/"):
            page.goto(path)
            expect(page.locator("main")).to_be_visible()
    # The GM voids the player's quick roll on its own page: a form with a field named "action" (the submit
    # listener read form.action, which that field shadows, and threw).
    roll = Roll.objects.filter(character=hero).exclude(procedure="creation").latest("pk")
    gm.goto(f"/characters/rolls/{roll.pk}/")
    gm.get_by_label("Why").fill("wrong attribute")
    gm.get_by_role("button", name="Void this roll").click()
    expect(gm.locator("[data-voided]")).to_contain_text("wrong attribute")
    player.goto(f"/characters/{hero.pk}/")
    expect(player.locator("#vitals")).to_be_visible()
    assert gm_errors + player_errors == []


# --- item 7: one clock control, in the system's units, its bound said before typing ---------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_game_clock_has_one_control_that_says_its_unit_and_bound(new_page, django_user_model, size):
    gm, campaign, _, _ = _opened(new_page, django_user_model, size, "gm_play", "/campaigns/{campaign}/")
    # The strip has no number of minutes of its own: it leads to the Time part's control (on a phone the strip
    # shows in the Time part).
    show_part(gm, "time")
    strip = gm.locator("#clock")
    expect(strip.locator("input")).to_have_count(0)
    strip.get_by_role("link", name="Let time pass…").click()
    time = gm.locator("#time")
    expect(time).to_be_visible()
    # One number moves the clock (the real-time rate and a light's minutes left are other controls, issue 41).
    expect(gm.locator("#clock input, #time [data-time-form] input[type=number]")).to_have_count(1)
    count = time.get_by_label("How many (1 to 30)")  # the bound, before anything is typed
    expect(count).to_be_visible()
    expect(count).to_have_attribute("max", "30")
    expect(time.locator("[data-time-span]")).to_have_text("10 minutes = 1 turn")
    time.get_by_label("Unit").select_option("turn")
    count.fill("6")
    expect(time.locator("[data-time-span]")).to_have_text("60 minutes = 6 turns")
    count.fill("60")
    expect(time.locator("[data-time-span]")).to_have_text("At most 30 at a time.")
    time.get_by_label("Unit").select_option("watch")
    count.fill("2")
    expect(time.locator("[data-time-span]")).to_have_text("8 hours = 2 watches")
    time.get_by_label("Unit").select_option("turn")
    count.fill("6")
    time.get_by_role("button", name="Let time pass").click()
    expect(time.locator("[data-time]")).to_have_attribute("data-time", "60")
    campaign.refresh_from_db()
    assert campaign.game_minutes == 60
    expect(strip.locator("[data-game-minutes]")).to_have_attribute("data-game-minutes", "60")


# --- item 11: the sheet by keyboard ---------------------------------------------------------------------------


def _tabs_until(page, test, most: int = 60) -> int:
    """Press Tab from the top of the page (loaded afresh) until ``test`` holds for the focused element; how many
    presses."""
    page.reload()
    expect(page.locator(".roll-panel form[data-roll-form]").first).to_be_attached()
    for presses in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.evaluate(test):
            return presses
    raise AssertionError(f"not reached in {most} presses of Tab")


IN_ROLL_FORM = "!!(document.activeElement && document.activeElement.closest('form[data-roll-form]'))"


@pytest.mark.parametrize("size", SIZES)
def test_skip_links_lead_into_the_roll_form_and_the_vitals(new_page, django_user_model, size):
    page, _, _, _ = _opened(new_page, django_user_model, size, "player_play", "/characters/{hero}/")
    expect(page.locator(".roll-panel form[data-roll-form]").first).to_be_attached()
    # By Tab alone the first roll form is dozens of stops away (36 when reported). The skip link is the second
    # stop, shown when focused; Enter lands in the Roll part's open form.
    assert _tabs_until(page, "document.activeElement.dataset.skipTo === 'roll'") == 2
    skip = page.get_by_role("link", name="Skip to Roll")
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("form[data-roll-form]").first).to_be_visible()
    assert page.evaluate(IN_ROLL_FORM), page.evaluate("document.activeElement.outerHTML")
    assert page.evaluate("document.activeElement.getClientRects().length > 0")
    # The Vitals: the third stop; focus lands on its first control, in view.
    assert _tabs_until(page, "document.activeElement.dataset.skipTo === 'vitals'") == 3
    page.keyboard.press("Enter")
    assert page.evaluate("!!document.activeElement.closest('#vitals')")
    expect(page.locator("#vitals")).to_be_in_viewport()


@pytest.mark.parametrize("size", SIZES)
def test_enter_on_an_open_roll_summary_goes_into_its_form(new_page, django_user_model, size):
    page, _, _, _ = _opened(new_page, django_user_model, size, "player_play", "/characters/{hero}/")
    show_part(page, "roll")
    control = page.locator(".roll-panel details.roll-control[open]").first
    expect(control).to_be_visible()
    control.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(control).to_have_attribute("open", "")  # still open
    assert page.evaluate(IN_ROLL_FORM)
    # A closed control opened with Enter: focus lands in its form once it has loaded.
    closed = page.locator(".roll-panel details.roll-control:not([open])").first
    procedure = closed.get_attribute("data-procedure")
    closed.locator("summary").focus()
    page.keyboard.press("Enter")
    opened = page.locator(f'.roll-panel details.roll-control[data-procedure="{procedure}"]')
    expect(opened).to_have_attribute("open", "")
    expect(opened.locator("form[data-roll-form]")).to_be_visible()
    page.wait_for_function(
        f"document.activeElement.closest('details.roll-control')?.dataset.procedure === '{procedure}'"
    )
    # Space still folds a control away.
    opened.locator("summary").focus()
    page.keyboard.press("Space")
    expect(opened).not_to_have_attribute("open", "")


# --- item 12: the settings page saves every change; the GM's seat buttons say what they show -------------------


@pytest.mark.parametrize("size", SIZES)
def test_either_save_on_the_settings_page_keeps_the_other_change(new_page, django_user_model, size):
    gm, campaign, _, _ = _opened(new_page, django_user_model, size, "gm_play", "/campaigns/{campaign}/settings/")
    scars = gm.get_by_label("Scars lower attributes for good")
    expect(scars).to_be_checked()
    # A rule changed, then the dice, and the dice setting's own Save: both are saved.
    scars.uncheck()
    gm.get_by_label("Players may enter their own dice").check()
    gm.get_by_role("button", name="Save the dice setting").click()
    changes = gm.locator("#rule-settings")
    expect(changes).to_contain_text("Dice: Server dice only → Players may enter their own dice")
    expect(changes).to_contain_text("Scars lower attributes for good")
    campaign.refresh_from_db()
    assert campaign.hand_dice == "players" and campaign.rule_settings["scar_losses_permanent"] is False
    # The other way round: the dice changed, then the rules' Save.
    gm.get_by_label("Everyone rolls by hand").check()
    gm.get_by_label("Scars lower attributes for good").check()
    gm.get_by_role("button", name="Save settings").click()
    expect(changes).to_contain_text("Players may enter their own dice → Everyone rolls by hand")
    campaign.refresh_from_db()
    assert campaign.hand_dice == "everyone" and campaign.rule_settings.get("scar_losses_permanent", True) is True
    gm.reload()
    expect(gm.get_by_label("Everyone rolls by hand")).to_be_checked()
    expect(gm.get_by_label("Scars lower attributes for good")).to_be_checked()


@pytest.mark.parametrize("size", SIZES)
def test_the_seat_buttons_name_what_they_show(new_page, django_user_model, size):
    gm, campaign, _, player = _opened(new_page, django_user_model, size, "gm_play", "/campaigns/{campaign}/")
    show_part(gm, "notes")  # the members, on a phone
    gm.evaluate("document.querySelectorAll('main details').forEach(d => d.open = true)")
    make_gm = gm.get_by_role("button", name="Make owner… player_play")
    expect(make_gm).to_be_attached()
    expect(gm.get_by_role("button", name="Remove… player_play from the table")).to_be_attached()
    result = Axe().run(gm, options={"runOnly": ["label-content-name-mismatch"]})
    assert result.response["violations"] == [], result.generate_report()
    assert Membership.objects.get(campaign=campaign, user=player).role != Membership.Role.GM
