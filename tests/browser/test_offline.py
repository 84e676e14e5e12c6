"""The phone app (issue 29) in real Chromium with the browser context set offline: a sheet opened earlier reloads
with its "offline — as of" banner; HP changes made offline are kept, then applied in order on reconnecting and seen
live on the GM's table; a change the GM overtook comes back as a conflict; logout leaves nothing of the person on
the device; the manifest and the worker pass Chromium's own installability check."""

from __future__ import annotations

import random
import re
import time

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Change, Character, Roll
from characters.services import character_adjust, character_create
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, log_in, show_part

PASSWORD = "lantern-light-42"
KEPT_ALL = """() => caches.keys().then((names) => Promise.all(names.map((name) =>
    caches.open(name).then((cache) => cache.keys()).then((keys) => [name, keys.map((r) => r.url)]))))"""
KEPT = """([href, user]) => caches.open("lantern-user-" + user).then((c) => c.match(href)).then(Boolean)"""


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_o", password=PASSWORD)
    player = django_user_model.objects.create_user("player_o", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    wren, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    return gm, player, campaign, wren


def _open_kept(page, character, user) -> None:
    """Open the sheet and wait until the service worker has kept it for this person."""
    page.goto(f"/characters/{character.pk}/")
    # Polled with evaluate, which awaits KEPT's promise (a promise object is already "truthy" to a wait loop).
    _wait_for(lambda: page.evaluate(KEPT, [page.url, str(user.pk)]), timeout=10.0)
    page.wait_for_function("() => navigator.serviceWorker.ready.then((r) => r.active.state === 'activated')")


def _hp(character) -> int:
    return Character.objects.get(pk=character.pk).state["hp"]


def _wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_a_sheet_opened_earlier_reloads_offline_with_its_banner(new_page, django_user_model):
    _, player, _, wren = _table(django_user_model)
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    hp = page.locator("[data-track=hp] [data-value]").first.inner_text()
    page.context.set_offline(True)
    page.reload()
    try:
        expect(page.locator("h1")).to_have_text("Wren")
    except AssertionError as failed:
        raise AssertionError(f"{page.url} for user {player.pk}; kept: {page.evaluate(KEPT_ALL)}") from failed
    expect(page.locator("#offline-banner")).to_contain_text("Offline — as of")
    assert page.locator("body").get_attribute("data-offline-as-of")  # the kept copy, not the network's
    expect(page.locator("[data-track=hp] [data-value]").first).to_have_text(hp)
    expect(page.locator("#log")).to_be_attached()  # the log as last seen comes along
    # A page never opened says plainly it was not kept, not the browser's error page.
    page.goto("/characters/999999/")
    expect(page.locator("h1")).to_have_text("You are offline")
    # Back online: the sheet is drawn afresh and the banner goes.
    page.context.set_offline(False)
    page.goto(f"/characters/{wren.pk}/")
    expect(page.locator("#offline-banner")).to_have_count(0)


USER_CACHES = "() => caches.keys().then((names) => names.filter((n) => n.startsWith('lantern-user-')))"


def test_a_session_that_ended_without_log_out_leaves_no_sheet_readable_offline(new_page, django_user_model):
    """Issue 35, item 16: on a shared device the worker served a kept sheet from any person's cache. Now only
    the signed-in person's: a session that expired (the browser drops its cookies) or was ended by a password
    change elsewhere leaves nothing readable offline, and its kept pages go on the next load."""
    _, player, _, wren = _table(django_user_model)
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    page.context.clear_cookies()  # the session expired: the browser drops its cookie, and its twin with it
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text("You are offline")
    expect(page.locator("[data-track=hp]")).to_have_count(0)
    assert page.evaluate(USER_CACHES) == []  # gone on this load

    # A password changed on another device ends this session too: the next answer says nobody is signed in.
    page.context.set_offline(False)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    player.set_password("another-lantern-77")
    player.save()
    page.goto("/characters/")
    page.wait_for_url("**/accounts/login/**")
    assert "lantern_user=" not in page.evaluate("() => document.cookie")
    page.context.set_offline(True)
    page.goto(f"/characters/{wren.pk}/")
    expect(page.locator("h1")).to_have_text("You are offline")
    page.wait_for_function(f"() => {USER_CACHES}().then((names) => names.length === 0)")


def test_three_hp_changes_made_offline_apply_in_order_live_on_the_gms_table(new_page, django_user_model):
    _, player, campaign, wren = _table(django_user_model)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_o", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    start, version = _hp(wren), wren.version

    page.context.set_offline(True)
    expect(page.locator("#offline-banner")).to_contain_text("Offline — as of")
    minus = page.get_by_role("button", name="HP minus one")
    for n in range(1, 4):
        minus.click()
        expect(page.locator("#offline-queue [data-waiting-tracks]")).to_have_attribute("data-waiting-tracks", str(n))
    expect(page.locator("[data-track=hp] [data-pending]")).to_have_text(" (−3 not sent yet)")
    expect(page.locator("#offline-queue")).to_contain_text("waiting to be sent")
    assert _hp(wren) == start  # nothing left the phone

    page.context.set_offline(False)
    _wait_for(lambda: _hp(wren) == start - 3)
    made = Change.objects.filter(character=wren, version__gt=version).order_by("version")
    assert [(c.what, c.by_id, c.version) for c in made] == [("HP -1", player.pk, version + n) for n in (1, 2, 3)]
    card_hp = gm.locator(f"#card-{wren.pk} [data-track=hp] [data-value]")
    expect(card_hp).to_have_text(str(start - 3))  # pushed live to the GM's table
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator("#offline-banner")).to_have_count(0)
    expect(page.locator("[data-track=hp] [data-value]").first).to_have_text(str(start - 3))


def test_a_change_the_gm_overtook_is_a_conflict_not_applied(new_page, django_user_model):
    gm, player, _, wren = _table(django_user_model)
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    page.context.set_offline(True)
    page.get_by_role("button", name="HP minus one").click()
    expect(page.locator("#offline-queue [data-waiting-tracks]")).to_have_count(1)
    character_adjust(character_id=wren.pk, key="hp", delta=-2, by=gm)  # the GM's hit while the phone was away
    after_gm = _hp(wren)

    page.context.set_offline(False)
    conflict = page.locator('#offline-queue li[data-state="conflict"]')
    expect(conflict).to_contain_text("gm_o changed HP since you made this change")
    # The page sent the journal cursor it had seen (issue 37): the whole sentence (the line's title, the line
    # itself stays short) says what happened at the table meanwhile.
    expect(conflict.locator(".error")).to_have_attribute("title", re.compile(r"Meanwhile at the table: Wren's sheet"))
    assert _hp(wren) == after_gm  # not applied blindly
    # Redo: made again against the sheet as it now shows, it applies.
    expect(page.locator("[data-track=hp] [data-value]").first).to_have_text(str(after_gm))
    conflict.get_by_role("button", name="Redo").click()
    _wait_for(lambda: _hp(wren) == after_gm - 1)
    expect(page.locator("#offline-queue")).to_have_count(0)


def test_a_conflict_may_be_discarded(new_page, django_user_model):
    gm, player, _, wren = _table(django_user_model)
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    page.context.set_offline(True)
    page.get_by_role("button", name="HP plus one").click()
    character_adjust(character_id=wren.pk, key="hp", delta=-1, by=gm)
    after_gm = _hp(wren)
    page.context.set_offline(False)
    conflict = page.locator('#offline-queue li[data-state="conflict"]')
    conflict.get_by_role("button", name="Discard").click()
    expect(page.locator("#offline-queue")).to_have_count(0)
    assert _hp(wren) == after_gm


def test_logout_leaves_nothing_of_the_person_on_the_device(new_page, django_user_model):
    _, player, _, wren = _table(django_user_model)
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    page.context.set_offline(True)
    page.get_by_role("button", name="HP minus one").click()  # a change kept in IndexedDB
    expect(page.locator("#offline-queue [data-waiting-tracks]")).to_have_count(1)
    page.context.set_offline(False)
    expect(page.locator("#offline-queue")).to_have_count(0)
    page.context.set_offline(True)
    page.get_by_role("button", name="HP minus one").click()
    expect(page.locator("#offline-queue [data-waiting-tracks]")).to_have_count(1)
    databases = page.evaluate("() => indexedDB.databases().then((dbs) => dbs.map((db) => db.name))")
    assert databases == [f"lantern-{player.pk}"]
    page.context.set_offline(False)
    page.on("dialog", lambda dialog: dialog.accept())  # "1 change made offline has not been sent yet..."
    page.route("**/characters/*/offline/", lambda route: route.abort())  # so that it is still waiting at logout
    page.locator(".account-menu summary").click()
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/**")
    page.wait_for_function("() => caches.keys().then((names) => !names.some((n) => n.startsWith('lantern-user-')))")
    names = page.evaluate("() => caches.keys()")
    assert not [name for name in names if name.startswith("lantern-user-")]
    page.wait_for_function("() => indexedDB.databases().then((dbs) => dbs.length === 0)")
    assert page.evaluate(f"() => caches.match('/characters/{wren.pk}/').then(Boolean)") is False


def test_the_manifest_and_worker_pass_chromiums_installability_check(
    browser, live_url, transactional_db, tmp_path, django_user_model
):
    django_user_model.objects.create_user("player_i", password=PASSWORD)
    # A Playwright context is incognito, never installable: a profile on disk, as a phone has.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, base_url=live_url
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        log_in(page, "player_i", PASSWORD)
        page.goto("/characters/")  # the manifest's start_url
        page.wait_for_function("navigator.serviceWorker.ready.then(() => Boolean(navigator.serviceWorker.controller))")
        cdp = context.new_cdp_session(page)
        deadline = time.monotonic() + 10
        errors = None
        while time.monotonic() < deadline:
            errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
            if not errors:
                break
            time.sleep(0.2)
        assert errors == [], errors
        manifest = cdp.send("Page.getAppManifest")
        assert not manifest.get("errors"), manifest
    finally:
        context.close()


def test_a_hand_roll_is_kept_offline_and_server_dice_say_they_need_a_connection(new_page, django_user_model):
    _, player, campaign, wren = _table(django_user_model)
    campaign.hand_dice = Campaign.HandDice.PLAYERS
    campaign.save(update_fields=["hand_dice"])
    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    page.context.set_offline(True)
    show_part(page, "roll")
    form = page.locator('.roll-control[data-procedure="test"] form[data-roll-form]')
    form.locator("button[type=submit]").click()  # the server's dice
    expect(form.locator("[data-needs-connection]")).to_contain_text("Rolling with the server's dice needs a connection")
    hand = form.locator("[name=hand]")
    if not hand.is_visible():
        form.get_by_text("I rolled these", exact=True).click()
    hand.fill("3")
    form.locator("button[type=submit]").click()
    expect(page.locator("#offline-queue li")).to_contain_text("(rolled by hand)")
    assert not Roll.objects.exclude(procedure="creation").exists()
    page.context.set_offline(False)
    _wait_for(lambda: Roll.objects.exclude(procedure="creation").filter(by_hand=True).exists())
    roll = Roll.objects.exclude(procedure="creation").get()
    assert roll.dice[0]["face"] == 3 and roll.roller_id == player.pk
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator("#log")).to_contain_text("rolled by hand")


def test_notes_edited_offline_are_kept_and_sent(new_page, django_user_model):
    _, player, _, wren = _table(django_user_model)
    page = new_page(width=1024, height=800)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    expect(page.locator("#offline-notes")).to_have_count(0)  # online, notes are edited on their own page
    page.context.set_offline(True)
    page.locator("#offline-notes summary").click()
    page.get_by_label("Notes (kept on this device").fill("Owes Brannoc three coins.")
    page.get_by_role("button", name="Keep the notes").click()
    expect(page.locator("#offline-queue li")).to_contain_text("Notes edited")
    assert Character.objects.get(pk=wren.pk).notes == ""
    page.context.set_offline(False)
    _wait_for(lambda: Character.objects.get(pk=wren.pk).notes == "Owes Brannoc three coins.")
    expect(page.locator("#details .notes")).to_have_text("Owes Brannoc three coins.")
    expect(page.locator("#offline-notes")).to_have_count(0)


@pytest.mark.parametrize(("width", "height"), [(375, 812), (1280, 800)], ids=["phone", "desktop"])
def test_offline_the_number_shows_what_it_will_be_and_a_conflict_stays_one_line(
    width, height, new_page, django_user_model
):
    """Issue 36, item 10: offline, three HP −1 left the big number at its old value beside a dashed "−3 waiting"
    chip. Now it reads as it will be, saying what is not sent yet: "3/6 (−3 not sent yet)"; the card says how many
    changes wait in one line, and a change the GM overtook is one short line with its buttons."""
    gm, player, _, wren = _table(django_user_model)
    page = new_page(width=width, height=height)
    log_in(page, "player_o", PASSWORD)
    _open_kept(page, wren, player)
    start = _hp(wren)
    maximum = Character.objects.get(pk=wren.pk).state["hp_max"]
    value = page.locator("[data-track=hp] .value")
    expect(value).to_have_text(f"{start}/{maximum}")
    assert start >= 3

    page.context.set_offline(True)
    minus = page.get_by_role("button", name="HP minus one")
    for _ in range(3):
        minus.click()
    expect(value).to_have_text(f"{start - 3}/{maximum} (−3 not sent yet)")
    box = value.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width  # whole, on the phone too
    card = page.locator("#offline-queue")
    expect(card).to_have_text("Kept on this device3 changes to the numbers above, waiting to be sent.")
    page.get_by_role("button", name="HP plus one").click()
    expect(value).to_have_text(f"{start - 2}/{maximum} (−2 not sent yet)")

    character_adjust(character_id=wren.pk, key="hp", delta=-1, by=gm)  # the GM's hit while the phone was away
    page.context.set_offline(False)
    conflicts = card.locator('li[data-state="conflict"]')
    expect(conflicts).to_have_count(4)
    expect(conflicts.first).to_have_text("HP −1 gm_o changed HP since you made this change (HP -1). Redo Discard")
    expect(card).not_to_contain_text("look at the sheet")
    expect(value).to_have_text(f"{start - 1}/{maximum}")  # the server's number: nothing of theirs applied
    assert _hp(wren) == start - 1


def test_a_take_made_offline_on_the_stash_page_is_kept_then_applied_and_a_late_one_says_what_happened(
    new_page, django_user_model
):
    """Issue 41: the party's stash works offline as the sheet does. Its own page is kept by the worker; a Take made
    with no connection waits on the device (shown on the item), and is applied once back online: the item on the
    sheet, gone from the stash; a Put the same way. One another player took meanwhile comes back as a conflict
    saying so."""
    from campaigns import stash
    from campaigns.models import StashItem
    from rules import base as rules_base

    gm, player, campaign, wren = _table(django_user_model)
    other = django_user_model.objects.create_user("player_p", password=PASSWORD)
    Membership.objects.create(campaign=campaign, user=other)
    ash, _ = character_create(
        owner=other, system="fell-draft", choices={"name": "Ash"}, campaign=campaign, rng=random.Random(9)
    )
    for name in ("Silver chalice", "Old map"):
        stash.stash_add_item(campaign_id=campaign.pk, item=rules_base.Item(name=name, kind="treasure"), by=gm)
    chalice, old_map = (StashItem.objects.get(stash__campaign=campaign, name=n) for n in ("Silver chalice", "Old map"))

    page = new_page(width=375, height=812)
    log_in(page, "player_o", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/stash/")
    _wait_for(lambda: page.evaluate(KEPT, [page.url, str(player.pk)]), timeout=10.0)  # kept, as a sheet is

    page.context.set_offline(True)
    page.reload()  # the kept copy, from the worker
    assert page.locator("body").get_attribute("data-offline-as-of")
    expect(page.locator("#offline-banner")).to_contain_text("kept on this device")
    for item in (chalice, old_map):
        page.locator(f"#stash-item-{item.pk}").get_by_role("button", name="Take").click()
    held = wren.items.order_by("position", "pk").first()  # what the Put form offers first
    page.get_by_text("Put something in, or take coins").click()
    page.get_by_role("button", name="Put in the stash").click()
    queue = page.locator('#stash-queue li[data-state="waiting"]')
    expect(queue).to_have_count(3)
    expect(queue.last).to_contain_text(f"Wren puts {held.name} (all) in the stash waiting to be sent")
    expect(queue.first).to_contain_text("Wren takes Silver chalice ×1 waiting to be sent")
    expect(page.locator(f"#stash-item-{chalice.pk} [data-pending]")).to_have_text(" (×1 taken, not sent yet)")
    assert not wren.items.filter(name__in=["Silver chalice", "Old map"]).exists()  # nothing left the phone
    stash.stash_take(campaign_id=campaign.pk, character_id=ash.pk, stash_item_id=old_map.pk, by=other)  # meanwhile

    page.context.set_offline(False)
    _wait_for(lambda: wren.items.filter(name="Silver chalice").exists())
    expect(page.locator(f"#stash-item-{chalice.pk}")).to_have_count(0)  # the page drawn afresh: gone from the stash
    assert not StashItem.objects.filter(pk=chalice.pk).exists()
    assert not wren.items.filter(pk=held.pk).exists()  # put in the stash, all of it
    expect(page.locator("#stash [data-stash-item]").filter(has_text=held.name)).to_have_count(1)
    conflict = page.locator('#stash-queue li[data-state="conflict"]')
    expect(conflict).to_contain_text("Wren takes Old map ×1")
    expect(conflict.locator(".error")).to_have_attribute(
        "title", re.compile(r"no longer in the stash.* Meanwhile at the table: the party's stash changed\.")
    )
    assert not wren.items.filter(name="Old map").exists()
    conflict.get_by_role("button", name="Discard").click()
    expect(page.locator("#stash-queue")).to_have_count(0)
    expect(page.locator("#offline-banner")).to_have_count(0)
