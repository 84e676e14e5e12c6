"""Streams follow permissions (issue 9, finding 9), through the real ASGI application on both engines.

Removing a player, a player leaving, a logout and a new password close the streams that lost their right; a
roll's signal reaches only the pages of those who may see the roll; a roll is announced once.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse

import live.hub as live
from campaigns import services
from characters import services as character_services
from live.events import SettingsChanged
from tests.campaigns.live_helpers import TIMEOUT, Stream, hub_has_cursors, run, session_cookie, write
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_presence_grace(settings):
    settings.SSE_PRESENCE_GRACE_SECONDS = 0


async def call(function, **kwargs):
    """A service call as a view makes it: in a worker thread, its connection closed afterwards."""

    def run_and_close():
        try:
            return function(**kwargs)
        finally:
            connections.close_all()

    return await sync_to_async(run_and_close, thread_sensitive=False)()


async def ended(stream: Stream) -> bool:
    """True once the server has finished the response (the hub closed the stream)."""
    try:
        while True:
            message = await asyncio.wait_for(stream.messages.get(), TIMEOUT)
            if not message.get("more_body", False):
                return True
    except TimeoutError:
        return False


def _path(campaign) -> str:
    return reverse("campaigns:events", args=[campaign.pk])


@pytest.mark.parametrize("how", ["removed", "left"])
def test_a_player_who_leaves_the_table_stops_hearing_it(campaign, gm, player, how):
    cookie, gm_cookie = session_cookie(player), session_cookie(gm)

    async def scenario():
        stream = await Stream(_path(campaign), cookie).open()
        watcher = await Stream(_path(campaign), gm_cookie).open()
        if how == "removed":
            await call(services.campaign_remove_player, campaign=campaign, user_id=player.pk)
        else:
            await call(services.campaign_leave, campaign=campaign, user=player)
        closed = await ended(stream)
        again = await Stream(_path(campaign), cookie).open()
        await again.task
        still_open = live.hub.streams_of(gm.pk)
        await watcher.close()
        return closed, again.status, still_open

    closed, status, gm_streams = run(scenario())
    assert closed, "the stream stayed open"
    assert status == 404
    assert gm_streams == 1  # only the player's stream was closed


def test_logging_out_closes_that_sessions_streams_only(campaign, player):
    first, second = session_cookie(player), session_cookie(player)

    def log_out_first():
        client = Client()
        client.cookies["sessionid"] = first
        return client.post(reverse("logout")).status_code

    async def scenario():
        phone = await Stream(_path(campaign), first).open()
        laptop = await Stream(_path(campaign), second).open()
        status = await call(log_out_first)
        closed = await ended(phone)
        open_left = live.hub.streams_of(player.pk)
        await laptop.close()
        return status, closed, open_left

    status, closed, open_left = run(scenario())
    assert status == 302 and closed
    assert open_left == 1  # the other session's page is still live


NEW_PASSWORD = "a-new-lantern-passphrase"


def _still_logged_in(cookie: str) -> bool:
    client = Client()
    client.cookies["sessionid"] = cookie
    return client.get(reverse("campaigns:list")).status_code == 200


def test_a_password_change_closes_the_other_sessions_streams(campaign, gm, player):
    phone, laptop, gm_cookie = session_cookie(player), session_cookie(player), session_cookie(gm)

    def change_on_laptop() -> tuple[int, str]:
        client = Client()
        client.cookies["sessionid"] = laptop
        response = client.post(
            reverse("password_change"),
            {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
        )
        return response.status_code, client.cookies["sessionid"].value  # Django gave the session a new key

    async def scenario():
        on_phone = await Stream(_path(campaign), phone).open()
        on_laptop = await Stream(_path(campaign), laptop).open()
        watcher = await Stream(_path(campaign), gm_cookie).open()
        status, laptop_now = await call(change_on_laptop)
        phone_closed = await ended(on_phone)
        # The laptop's page closes too and reconnects with its new session key; the phone's cannot.
        laptop_closed = await ended(on_laptop)
        again = {
            name: await Stream(_path(campaign), cookie).open()
            for name, cookie in [("phone", phone), ("laptop", laptop_now)]
        }
        statuses = {name: stream.status for name, stream in again.items()}
        await again["laptop"].close()
        await again["phone"].task
        gm_streams = live.hub.streams_of(gm.pk)
        await watcher.close()
        return status, laptop_now, phone_closed, laptop_closed, statuses, gm_streams

    status, laptop_now, phone_closed, laptop_closed, statuses, gm_streams = run(scenario())
    assert status == 302
    assert phone_closed, "the logged-out phone's stream kept receiving"
    assert laptop_closed
    assert statuses == {"phone": 302, "laptop": 200}  # the phone is sent to the login page
    assert not _still_logged_in(phone)
    assert _still_logged_in(laptop_now)
    assert gm_streams == 1  # nobody else's page closed


def test_an_admin_setting_a_password_closes_that_accounts_streams(campaign, gm, player):
    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    cookie, gm_cookie, admin_cookie = session_cookie(player), session_cookie(gm), session_cookie(admin)

    def set_players_password() -> int:
        client = Client()
        client.cookies["sessionid"] = admin_cookie
        response = client.post(
            reverse("admin:auth_user_password_change", args=[player.pk]),
            {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
        )
        return response.status_code

    async def scenario():
        stream = await Stream(_path(campaign), cookie).open()
        watcher = await Stream(_path(campaign), gm_cookie).open()
        status = await call(set_players_password)
        closed = await ended(stream)
        gm_streams = live.hub.streams_of(gm.pk)
        await watcher.close()
        return status, closed, gm_streams

    status, closed, gm_streams = run(scenario())
    assert status == 302
    assert closed, "the player's stream kept receiving after the admin set a new password"
    assert gm_streams == 1
    assert not _still_logged_in(cookie)


def test_saving_an_account_without_a_new_password_closes_nothing(campaign, player):
    cookie = session_cookie(player)

    def touch_the_account() -> None:
        player.first_name = "Wren"
        player.save()  # every field, the password unchanged
        Client().force_login(player)  # a login saves last_login

    async def scenario():
        stream = await Stream(_path(campaign), cookie).open()
        await stream.events_until_quiet()  # presence
        await call(touch_the_account)
        await hub_has_cursors(campaign.pk)
        await write(campaign.pk, SettingsChanged())
        topics = await stream.events_until_quiet(0.5)
        await stream.close()
        return topics

    assert run(scenario()) == ["settings"]  # still open, still hearing the table


def _roll(character, by, visibility):
    return character_services.character_roll(
        character_id=character.pk, procedure="test", params={"ability": "BOD"}, by=by, visibility=visibility
    )


@pytest.mark.parametrize(
    ("visibility", "hears"),
    [("public", {"player", "other_player", "gm"}), ("gm", {"player", "gm"}), ("private", {"player"})],
)
def test_a_rolls_line_reaches_only_those_who_may_see_it(campaign, gm, player, other_player, hero, visibility, hears):
    """Issue 25: the roll's line is pushed drawn, to the table pages and sheets of those who may see it only."""
    people = {"player": player, "other_player": other_player, "gm": gm}
    cookies = {name: session_cookie(user) for name, user in people.items()}
    pages = ("page=table", f"page=sheet-{hero.pk}")

    async def scenario():
        streams = {
            (name, page): await Stream(_path(campaign), cookie, query=page).open()
            for name, cookie in cookies.items()
            for page in pages
        }
        await hub_has_cursors(campaign.pk)  # each page's regions drawn as it opens: the roll is news to all
        for stream in streams.values():
            await _pushes_until_quiet(stream)  # presence arrivals, and each page's regions as it opens
        roll = (await call(_roll, character=hero, by=player, visibility=visibility)).row
        heard = {key: await _pushes_until_quiet(stream, 0.5) for key, stream in streams.items()}
        for stream in streams.values():
            await stream.close()
        return roll, heard

    roll, heard = run(scenario())
    line = f'id="roll-{roll.pk}"'
    for page in pages:
        assert {name for (name, on), htmls in heard.items() if on == page and any(line in h for h in htmls)} == hears
    for htmls in heard.values():
        assert sum(html.count(line) for html in htmls) <= 1  # pushed once per roll, not twice


async def _pushes_until_quiet(stream, quiet: float = 0.2) -> list[str]:
    pushed = []
    while True:
        try:
            topic, data = await stream.next_event(quiet)
        except TimeoutError:
            return pushed
        if topic == "push":
            pushed.append(data["html"])
