"""Permissions stay exact with several GMs (issue 42): owner, co-GM, player, former player and stranger against every
page URL of the app (read from the URL conf, so a new URL is in the matrix the day it is added), every API endpoint
(read from the API's schema), the live stream and webhook delivery.

What the matrix holds, cell by cell:
- a co-GM reaches exactly what the owner reaches, except what only the owner does (OWNER_ONLY: naming co-GMs,
  handing the table over, the owner's own webhooks), where a co-GM is refused;
- a former player (left the table, their character with them) is a stranger: refused everywhere the table's rows
  are named, and told nothing of them (the campaign's and the character's names never appear);
- a player reaches the table's own pages and their own character's, and is refused the GM's (PLAYER_REFUSED, kept
  here in full so a page that opens to players, or closes to them, is a decision someone made).

Each request runs in a savepoint that is rolled back, so one cell's write never steers the next.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from api.app import api
from campaigns import commands, services
from campaigns.models import Countdown, Encounter, Npc, RollRequest, RollRequestAnswer
from characters.models import Change, Roll
from tests.api.conftest import bearer
from tests.conftest import client_for, make_character, make_user
from tests.pages import HTMX

pytestmark = pytest.mark.django_db

ROLES = ("owner", "co_gm", "player", "former", "stranger")
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
# The page routes the matrix walks: every named one whose path names a row by id (a table, a character, a roll…);
# the rest name none (a list, a pregen by system, the invite link: open to whoever holds it, which is its point).
SCOPED_NAMESPACES = ("campaigns", "characters", "webhooks", "discord")
# What only the table's owner does; a co-GM is refused.
OWNER_ONLY = {
    "campaigns:set_co_gm",
    "campaigns:transfer_gm",
    "webhooks:delete",  # the owner's own webhook (a co-GM makes their own)
    "webhooks:resume",
}
API_OWNER_ONLY = {("post", "/api/campaigns/{campaign_id}/co-gms"), ("post", "/api/campaigns/{campaign_id}/hand-over")}
# The GM's pages a player is refused (403 or 404) where the owner is let in, in full. (The stash's GM writes read
# their fields first: an empty form is refused as such to any member, a filled one to a player as not theirs.)
PLAYER_REFUSED = {
    "campaigns:apply_settings",
    "campaigns:backup_export",
    "campaigns:catalogue_updates",
    "campaigns:character_note_save",
    "campaigns:chronicle_summary",
    "campaigns:clock",
    "campaigns:countdown_new",
    "campaigns:countdown_remove",
    "campaigns:countdown_show",
    "campaigns:countdown_tick",
    "campaigns:encounter",
    "campaigns:encounter_action",
    "campaigns:gm_roll",
    "campaigns:gm_roll_odds",
    "campaigns:hand_dice",
    "campaigns:light_time",
    "campaigns:note_save",
    "campaigns:notes",
    "campaigns:npc_action",
    "campaigns:party_print",
    "campaigns:realtime_pause",
    "campaigns:realtime_start",
    "campaigns:regenerate_invite",
    "campaigns:remove_player",
    "campaigns:request_cancel",
    "campaigns:request_close",
    "campaigns:request_fields",
    "campaigns:request_new",
    "campaigns:request_odds",
    "campaigns:request_roll_for",
    "campaigns:request_skip",
    "campaigns:request_what_if",
    "campaigns:session_end",
    "campaigns:session_start",
    "campaigns:set_co_gm",
    "campaigns:summary_save",
    "campaigns:table_systems",
    "campaigns:time_advance",
    "campaigns:time_daylight",
    "campaigns:transfer_gm",
    "discord:campaign",
    "discord:channel_unlink",
    "webhooks:campaign",
    "webhooks:delete",
    "webhooks:resume",
}
REFUSED = (403, 404)


@pytest.fixture
def table(gm, player, other_player, stranger):
    """The Sunken Vault, owned by ``gm``; ``co_gm`` runs it with them; ``player`` plays Wren there; ``former``
    played Ash there and left, Ash with them. One session ran, led by the co-GM; a fight, a countdown and a roll
    request are open."""
    from tests.conftest import make_table

    co_gm = make_user("co_gm")
    campaign = make_table("fell-draft", gm, player, other_player, co_gm)
    commands.set_co_gm(campaign.pk, inputs={"user_id": co_gm.pk, "co_gm": True}, by=gm)
    hero = make_character(player, campaign, name="Wren")
    ash = make_character(other_player, campaign, name="Ash", seed=11)
    tokens = {
        "owner": bearer(gm, "table", campaign),
        "co_gm": bearer(co_gm, "table", campaign),
        "player": bearer(player, "play"),
        "former": bearer(other_player, "play"),
        "stranger": bearer(stranger, "play"),
    }
    services.campaign_leave(campaign=campaign, user=other_player)
    commands.start_session(co_gm, campaign.pk)
    commands.end_session(co_gm, campaign.pk, summary="The vault's door.")
    encounter = Encounter.objects.create(campaign=campaign, name="Rats")
    npc = Npc.objects.create(campaign=campaign, encounter=encounter, name="Rat", stats={})
    countdown = Countdown.objects.create(campaign=campaign, name="The flood", segments=4)
    asked = RollRequest.objects.create(
        campaign=campaign, procedure="test", label="Test", expires_at=timezone.now() + timedelta(hours=1)
    )
    RollRequestAnswer.objects.create(request=asked, character=hero)
    hook = _hook(campaign, gm)
    ids = {
        "character_id": hero.pk,
        "number": 1,
        "request_id": asked.pk,
        "countdown_id": countdown.pk,
        "npc_id": npc.pk,
        "item_id": hero.items.values_list("pk", flat=True).first() or 1,
        "change_id": Change.objects.filter(character=hero).values_list("pk", flat=True).first() or 1,
        "roll_id": Roll.objects.filter(character=hero).values_list("pk", flat=True).first() or 1,
    }
    users = {"owner": gm, "co_gm": co_gm, "player": player, "former": other_player, "stranger": stranger}
    return {"campaign": campaign, "hero": hero, "ash": ash, "users": users, "tokens": tokens, "ids": ids, "hook": hook}


def _hook(campaign, owner):
    from webhooks.models import Webhook

    return Webhook.objects.create(campaign=campaign, owner=owner, name="Table", url="https://example.com/hook")


# --- the pages -----------------------------------------------------------------------------------------------


def _routes(patterns=None, prefix: str = "", namespace: str = "") -> list[tuple[str, str]]:
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            found += _routes(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern) and entry.name:
            found.append((namespace + entry.name, prefix + str(entry.pattern)))
    return [
        (name, route)
        for name, route in found
        if name.split(":")[0] in SCOPED_NAMESPACES and "<id:" in route and name != "campaigns:events"
    ]


def _path(name: str, route: str, t) -> str:
    """The route with the table's rows in it: the campaign, Wren, the session, the request, the NPC…"""
    campaign, hero = t["campaign"], t["hero"]
    character_scoped = name.startswith("characters:") or name == "webhooks:character"
    own = {
        "pk": t["hook"].pk if name in ("webhooks:delete", "webhooks:resume") else hero.pk if character_scoped else None,
        "code": campaign.invite_code,
        "name": "vitals" if name.startswith("characters:") else "members",
        "procedure": "test",
        "system": hero.system,
        "action": "remove" if name == "campaigns:npc_action" else "end",
    }

    def value(match: re.Match[str]) -> str:
        converter, param = match.group(1), match.group(2)
        if param == "pk":
            return str(own["pk"] or campaign.pk)
        if param in own:
            return str(own[param])
        return str(t["ids"].get(param, 1)) if converter == "id" else "x"

    return "/" + PARAMETER.sub(value, route)


def _ask(client, path: str) -> tuple[int, str]:
    """GET the path; a write's route (405) is POSTed as htmx would, with no fields. Rolled back either way."""
    with transaction.atomic():
        response = client.get(path, **HTMX)
        if response.status_code == 405:
            response = client.post(path, **HTMX)
        transaction.set_rollback(True)
    body = b"" if getattr(response, "streaming", False) else response.content
    return response.status_code, body.decode(errors="replace")


def test_every_page_url_answers_each_seat_exactly(table):
    clients = {role: client_for(user) for role, user in table["users"].items()}
    routes = _routes()
    cells = Counter()
    owner_reached, player_refused = set(), set()
    secret = (table["campaign"].name, table["hero"].name)
    for name, route in routes:
        path = _path(name, route, table)
        got = {role: _ask(clients[role], path) for role in ROLES}
        cells.update(got.keys())
        status = {role: got[role][0] for role in ROLES}
        if status["owner"] not in REFUSED:
            owner_reached.add(name)
        if name in OWNER_ONLY:
            assert status["co_gm"] in REFUSED, (name, status)
        else:
            assert (status["co_gm"] in REFUSED) == (status["owner"] in REFUSED), (name, status)
        if status["player"] in REFUSED and status["owner"] not in REFUSED:
            player_refused.add(name)
        for outsider in ("former", "stranger"):
            assert status[outsider] in REFUSED, (name, outsider, status)
            assert not any(word in got[outsider][1] for word in secret), (name, outsider)
    assert player_refused == PLAYER_REFUSED, (
        sorted(player_refused - PLAYER_REFUSED),
        sorted(PLAYER_REFUSED - player_refused),
    )
    # The owner reaches every route but those that name a row the fixture has none of.
    assert len(owner_reached) > len(routes) - 15, sorted({n for n, _ in routes} - owner_reached)
    print(f"page cells: {sum(cells.values())} ({len(routes)} URLs × {len(ROLES)} seats)")
    assert sum(cells.values()) == len(routes) * len(ROLES)


# --- the API -------------------------------------------------------------------------------------------------


def _api_calls() -> list[tuple[str, str]]:
    schema = api.get_openapi_schema()
    return sorted((method, path) for path, item in schema["paths"].items() for method in item)


def _api_path(path: str, t) -> str:
    values = {
        "campaign_id": t["campaign"].pk,
        "character_id": t["hero"].pk,
        "action": "end",
        "procedure": "test",
        "key": "hp",
        **t["ids"],
    }
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), path)


def test_every_api_endpoint_answers_each_seat_exactly(table):
    calls = [(method, path) for method, path in _api_calls() if "{" in path]
    cells = Counter()
    for method, path in calls:
        url = _api_path(path, table)
        status, said = {}, {}
        for role in ROLES:
            client = table["tokens"][role]
            with transaction.atomic():
                answer = client.get(url) if method == "get" else client.send(url, {})
                transaction.set_rollback(True)
            status[role], said[role] = answer.status_code, answer.content
            cells[role] += 1
        if (method, path) in API_OWNER_ONLY:
            assert status["co_gm"] in REFUSED and status["owner"] not in REFUSED, (path, status)
        else:
            assert (status["co_gm"] in REFUSED) == (status["owner"] in REFUSED), (method, path, status)
        for outsider in ("former", "stranger"):
            # A body the schema can't read is refused before anyone is asked who they are: the same sentence for
            # every seat, which tells an outsider nothing of the table.
            unread = status[outsider] == 422 and said[outsider] == said["owner"]
            assert status[outsider] in REFUSED or unread, (method, path, outsider, status)
    print(f"API cells: {sum(cells.values())} ({len(calls)} endpoints × {len(ROLES)} seats)")
    assert sum(cells.values()) == len(calls) * len(ROLES)


# --- webhooks ------------------------------------------------------------------------------------------------


def test_webhook_delivery_follows_each_seat(table):
    """Each seat's own webhooks (the table's, and their character's where they had one) against a player's public
    roll and a co-GM's GM-only roll, fanned out as the worker does: the owner's and the co-GM's table webhooks
    carry the same (the public roll: a table's webhook speaks to the table at large); a player's own character's
    webhook its public roll; a former player's and a stranger's nothing."""
    from characters import services as character_services
    from tests.recorded import commit_pending
    from webhooks.models import Delivery, Webhook
    from webhooks.services import fan_out_due

    campaign, users, hero, ash = table["campaign"], table["users"], table["hero"], table["ash"]
    Webhook.objects.all().delete()
    commit_pending()
    hooks = {
        (role, "table"): Webhook.objects.create(campaign=campaign, owner=user, name=role, url="https://example.com/t")
        for role, user in users.items()
    }
    for role, character in (("player", hero), ("former", ash)):
        hooks[(role, "character")] = Webhook.objects.create(
            campaign=campaign, owner=users[role], character=character, name=role, url="https://example.com/c"
        )
    for by, visibility in ((users["player"], "public"), (users["co_gm"], "gm")):
        character_services.character_roll(
            character_id=hero.pk, procedure="test", params={"ability": "BOD"}, by=by, visibility=visibility
        )
        commit_pending()
    fan_out_due()
    got = {key: Delivery.objects.filter(webhook=hook).count() for key, hook in hooks.items()}
    assert got == {
        ("owner", "table"): 1,
        ("co_gm", "table"): 1,
        ("player", "table"): 0,
        ("former", "table"): 0,
        ("stranger", "table"): 0,
        ("player", "character"): 1,
        ("former", "character"): 0,
    }
    print(f"webhook cells: {len(got)}")


# --- the live stream -----------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("visibility", ["public", "gm"])
def test_the_stream_opens_to_the_table_and_carries_a_roll_to_those_who_may_see_it(table, visibility):
    """Each seat opens the table's stream (outsiders: 404); a roll's line reaches the owner's and the co-GM's pages
    alike, a GM-only one no player's but its roller's."""
    from asgiref.sync import sync_to_async
    from django.db import connections
    from django.urls import reverse

    from characters import services as character_services
    from tests.campaigns.live_helpers import Stream, hub_has_cursors, run, session_cookie
    from tests.campaigns.test_stream_permissions import _pushes_until_quiet

    campaign, users, hero = table["campaign"], table["users"], table["hero"]
    expected = {"owner", "co_gm", "player"} if visibility == "public" else {"owner", "co_gm"}
    path = reverse("campaigns:events", args=[campaign.pk])
    cookies = {role: session_cookie(user) for role, user in users.items()}

    def roll():
        try:
            return character_services.character_roll(
                character_id=hero.pk,
                procedure="test",
                params={"ability": "BOD"},
                by=users["co_gm"],
                visibility=visibility,
            ).row
        finally:
            connections.close_all()

    async def scenario():
        streams = {role: await Stream(path, cookie, query="page=table").open() for role, cookie in cookies.items()}
        statuses = {role: stream.status for role, stream in streams.items()}
        await hub_has_cursors(campaign.pk)
        open_ones = {role: stream for role, stream in streams.items() if stream.status == 200}
        for stream in open_ones.values():
            await _pushes_until_quiet(stream)
        row = await sync_to_async(roll, thread_sensitive=False)()
        # Those who should see it wait for it (a loaded machine is slow to push); the others, a quiet moment.
        heard = {
            role: await _pushes_until_quiet(stream, 3 if role in expected else 0.5)
            for role, stream in open_ones.items()
        }
        for stream in streams.values():
            await stream.close()
        return statuses, row, heard

    statuses, row, heard = run(scenario())
    assert statuses == {"owner": 200, "co_gm": 200, "player": 200, "former": 404, "stranger": 404}
    line = f'id="roll-{row.pk}"'
    hears = {role for role, htmls in heard.items() if any(line in html for html in htmls)}
    assert hears == expected
    print(f"stream cells: {len(statuses)}")
