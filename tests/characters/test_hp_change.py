"""Issue 39: the HP change reads its row once, locked with its seat, takes its sheet as kept for that version
(``region_cache.checked_sheet``), and answers with the regions kept for the push (``region_cache.sheet_region``).

What must not move with it: the answer and the next sheet show the new value (nothing kept for an older version
is served), a sheet kept for an older version is never written from, the change goes out once, Undo still puts it
back, only the owner and the table's GM change it, and two people changing the sheet at once lose nothing.
"""

from __future__ import annotations

import re
import threading
from unittest import mock

import pytest
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters import region_cache, services
from characters.models import Character
from live import relay
from rules import base as rules_base
from tests.conftest import client_for
from tests.pages import HTMX, form_fields, track_text
from tests.recorded import Since, commit_pending


def _hp(response) -> int:
    return int(track_text(response, "hp").split("/")[0])


def _slots_used(response) -> str:
    match = re.search(r"<strong data-slots-used>(\d+)</strong>", response.content.decode())
    assert match, "no slots on the page"
    return match[1]


def test_the_answer_and_the_next_sheet_show_the_new_value(hero, player, as_user):
    client = as_user(player)
    url = reverse("characters:adjust", args=[hero.pk])
    start = _hp(client.get(hero.get_absolute_url()))  # the page's regions kept for this version
    for delta, expected in (("-1", start - 1), ("-1", start - 2), ("1", start - 1)):
        answer = client.post(url, {"key": "hp", "delta": delta}, **HTMX)
        assert answer.status_code == 200 and _hp(answer) == expected
        version = Character.objects.get(pk=hero.pk).version
        assert f'data-version="{version}"' in answer.content.decode()
        commit_pending()  # as after its commit: its checked sheet kept for the version it saved
        page = client.get(hero.get_absolute_url())
        assert _hp(page) == expected and f'data-version="{version}"' in page.content.decode()
        region = client.get(reverse("characters:region", args=[hero.pk, "vitals"]), **HTMX)
        assert _hp(region) == expected


def test_the_answer_is_what_the_push_draws_with_this_viewers_token_and_undo(hero, player, as_user):
    """One drawing of the new version serves the answer and the push to the owner's other pages."""
    client = as_user(player)
    response = client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HTMX)
    saved = Character.objects.select_related("campaign").get(pk=hero.pk)
    kept = {region: region_cache.region_key(saved, "owner", region) for region in ("vitals", "details")}
    from django.core.cache import cache

    assert all(cache.get(key) for key in kept.values())
    page = response.content.decode()
    assert "__lantern" not in page and "<!--undo:vitals-->" not in page  # every slot filled in
    assert page.count('hx-swap-oob="outerHTML"') == 1 and 'id="details"' in page
    assert re.search(r'<form class="undo"[^>]*action="/characters/\d+/history/\d+/revert/"', page)


def test_a_sheet_kept_for_an_older_version_is_never_written_from(hero, player, as_user):
    """An item added after the sheet was kept moves the version: the HP change reads the sheet as it is."""
    client = as_user(player)
    url = reverse("characters:adjust", args=[hero.pk])
    client.post(url, {"key": "hp", "delta": "-1"}, **HTMX)
    commit_pending()  # the sheet kept for this version
    item = rules_base.Item(name="Anvil", kind="gear", slots=1, quantity=1)
    services.item_add(character_id=hero.pk, item=item, by=player)
    commit_pending()
    answer = client.post(url, {"key": "hp", "delta": "1"}, **HTMX)
    assert answer.status_code == 200
    fresh = Character.objects.get(pk=hero.pk)
    assert fresh.items.filter(name="Anvil").exists()
    page = client.get(hero.get_absolute_url())
    assert _slots_used(answer) == _slots_used(page)
    assert "Anvil" in page.content.decode()
    # The kept sheet of the version the HP change saved holds the anvil too.
    commit_pending()
    fresh = Character.objects.select_related("campaign").get(pk=hero.pk)
    assert any(item.name == "Anvil" for item in region_cache.checked_sheet(fresh).items)


def test_the_change_goes_out_once(hero, player, as_user, django_capture_on_commit_callbacks):
    client = as_user(player)
    since = Since(hero.campaign_id)
    with (
        mock.patch.object(relay, "announce") as announce,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HTMX)
    assert response.status_code == 200
    assert announce.call_count == 1  # one signal after the commit
    (entry,) = since.entries()  # one write, one entry
    assert since.topics() == [f"{hero.topic}-vitals", f"{hero.topic}-details"]
    assert len(entry.events) == len(set(entry.events))


def test_undo_still_puts_the_change_back(hero, player, as_user):
    client = as_user(player)
    start = _hp(client.get(hero.get_absolute_url()))
    answer = client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HTMX)
    assert _hp(answer) == start - 1
    commit_pending()
    action = re.search(r'<form class="undo"[^>]*action="([^"]+)"', answer.content.decode())[1]
    undone = client.post(action, form_fields(answer, action), **HTMX)
    assert undone.status_code == 200 and _hp(undone) == start
    commit_pending()
    assert _hp(client.get(hero.get_absolute_url())) == start
    assert Character.objects.get(pk=hero.pk).changes.first().reverts is not None


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 404), ("stranger", 404)])
def test_only_the_owner_and_the_gm_change_it(hero, who, status, request, as_user):
    before = Character.objects.get(pk=hero.pk)
    client = as_user(request.getfixturevalue(who))
    with CaptureQueriesContext(connection) as captured:
        response = client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HTMX)
    assert response.status_code == status
    after = Character.objects.get(pk=hero.pk)
    changed = (after.version, after.state["hp"]) != (before.version, before.state["hp"])
    assert changed == (status == 200)
    if status == 404:  # nothing written, nothing recorded
        assert not any(q["sql"].startswith(("UPDATE", "INSERT")) for q in captured)


@pytest.mark.django_db(transaction=True)
def test_two_people_changing_the_sheet_at_once_lose_nothing(player, gm, campaign):
    """The owner and the GM, 4 threads each × 8 "−1 coin" through the page: every one of the 64 applies."""
    from tests.conftest import make_character

    hero = make_character(player, campaign)
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "coins": 1000})
    url = reverse("characters:adjust", args=[hero.pk])
    threads, per_thread = 8, 8
    barrier, errors = threading.Barrier(threads), []

    def run(user) -> None:
        try:
            client = client_for(user)
            barrier.wait()
            for _ in range(per_thread):
                response = client.post(url, {"key": "coins", "delta": "-1"}, **HTMX)
                assert response.status_code == 200, response.content[:200]
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    workers = [threading.Thread(target=run, args=(player if n % 2 else gm,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not errors, errors[:3]
    hero.refresh_from_db()
    assert hero.state["coins"] == 1000 - threads * per_thread
    assert hero.version == 1 + threads * per_thread


def test_the_push_to_the_owners_other_pages_reuses_the_answers_drawing(hero, player, gm, as_user, monkeypatch):
    """Render once, push everywhere: the owner's other pages get the regions the answer drew; the GM's are drawn
    from the sheet the write kept, without reading its items or hirelings."""
    from campaigns import push

    client = as_user(player)
    since = Since(hero.campaign_id)
    answer = client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HTMX)
    commit_pending()
    drawn: list[str] = []
    real = region_cache.render_to_string
    monkeypatch.setattr(
        region_cache, "render_to_string", lambda name, *a, **k: drawn.append(name) or real(name, *a, **k)
    )
    sheet = f"sheet-{hero.pk}"
    with CaptureQueriesContext(connection) as captured:
        out = push.render_push(hero.campaign_id, since.events(), [(player.pk, sheet), (gm.pk, sheet)])
    assert sorted(drawn) == ["characters/sheet.html#details", "characters/sheet.html#vitals"]  # the GM's only
    assert not any(table in q["sql"] for q in captured for table in ("characters_item", "characters_hireling"))
    owner = out[(player.pk, sheet)]
    assert _hp(answer) == int(re.search(r'data-track="hp" data-current="(-?\d+)"', owner)[1])
    assert 'id="vitals"' in out[(gm.pk, sheet)]
