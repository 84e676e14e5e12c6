"""What the phone app costs (issue 29, docs/performance.md): the bytes a kept sheet takes on the device, per system,
and the first load of the app (requests and bytes, the worker's own fetches included) in a fresh browser.

Run with ``-s`` to print the figures; the bounds keep them from growing unnoticed."""

from __future__ import annotations

import random

from campaigns.models import Campaign, Membership
from characters.services import character_create
from rules import SYSTEMS
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"
KEPT_BYTES = """([user]) => caches.open("lantern-user-" + user).then((cache) => cache.keys().then((keys) =>
    Promise.all(keys.map((key) => cache.match(key).then((r) => r.blob()).then((b) => [key.url, b.size])))))"""
STATIC_BYTES = """() => caches.open("lantern-static-v1").then((cache) => cache.keys().then((keys) =>
    Promise.all(keys.map((key) => cache.match(key).then((r) => r.blob()).then((b) => [key.url, b.size])))))"""


def test_kept_bytes_per_sheet_and_the_first_load(new_page, django_user_model):
    gm = django_user_model.objects.create_user("gm_c", password=PASSWORD)
    player = django_user_model.objects.create_user("player_c", password=PASSWORD)
    sheets = []
    for n, system in enumerate(SYSTEMS):
        campaign = Campaign.objects.create(name=f"Table {n}", system=system)
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=player)
        character, _ = character_create(
            owner=player, system=system, choices={"name": f"Wren {n}"}, campaign=campaign, rng=random.Random(7)
        )
        sheets.append(character)

    page = new_page(width=375, height=812)
    seen: list[tuple[str, int, str]] = []  # every request of the context, the worker's own included

    def record(request) -> None:
        if "/events/" in request.url:
            return  # the sheet's stream: open for as long as the page is
        sizes = request.sizes()
        who = "worker" if request.service_worker else "page"
        seen.append((request.url, sizes["responseBodySize"] + sizes["responseHeadersSize"], who))

    page.context.on("requestfinished", record)
    page.goto("/accounts/login/")
    log_in(page, "player_c", PASSWORD)
    page.goto(f"/characters/{sheets[0].pk}/")
    page.wait_for_function(
        "([href, user]) => caches.open('lantern-user-' + user).then((c) => c.match(href)).then(Boolean)",
        arg=[page.url, str(player.pk)],
    )
    page.wait_for_timeout(500)
    first_load = list(seen)
    for character in sheets[1:]:
        page.goto(f"/characters/{character.pk}/")
    page.wait_for_timeout(500)
    kept = dict(page.evaluate(KEPT_BYTES, [str(player.pk)]))
    assets = dict(page.evaluate(STATIC_BYTES))

    print("\nfirst load (login page, log in, campaigns, the sheet):")
    for url, size, who in first_load:
        print(f"  {size:>8} {who:<6} {url}")
    print(f"  total: {len(first_load)} requests, {sum(s for _, s, _ in first_load)} bytes on the wire")
    print("kept per sheet (bytes):")
    for character in sheets:
        url = next(u for u in kept if u.endswith(f"/characters/{character.pk}/"))
        print(f"  {character.system:<16} {kept[url]:>8}")
    print(f"static kept: {len(assets)} files, {sum(assets.values())} bytes")

    assert len(kept) == len(sheets)
    assert max(kept.values()) < 200_000  # a sheet kept for reading offline: tens of KB, not hundreds
    assert sum(assets.values()) < 200_000
