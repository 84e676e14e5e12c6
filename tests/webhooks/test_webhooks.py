"""Webhooks (issue 28): added on their pages by whom may, fed by the write paths, delivered by the task worker
(run here in this process, batch mode) to a real HTTP receiver; what each audience may see and nothing more."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from characters.models import Roll
from live import events as ev
from tests.conftest import make_character
from tests.pages import HTMX, roll_form
from tests.webhooks.conftest import run_worker
from webhooks.models import Delivery, Webhook
from webhooks.payloads import kind_of


def add_hook(client, url_name: str, pk: int, target: str, **fields) -> tuple[Webhook, str]:
    """Add a webhook through its page as the form posts it; the page shows its secret once."""
    page_url = reverse(url_name, args=[pk])
    data = {"name": "Table", "url": target, "format": "auto", "rolls": "on", **fields}
    response = client.post(page_url, {k: v for k, v in data.items() if v is not None})
    assert response.status_code == 302, response.content.decode()
    page = client.get(page_url).content.decode()
    hook = Webhook.objects.latest("pk")
    assert f"<code data-secret>{hook.secret}</code>" in page
    assert hook.secret not in client.get(page_url).content.decode()  # once
    return hook, hook.secret


def player_roll(client, character, visibility: str) -> Roll:
    url, fields = roll_form(client, character, "test", ability="BOD", visibility=visibility)
    response = client.post(url, fields | {"version": character.version}, **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]
    character.refresh_from_db()
    return Roll.objects.filter(character=character).latest("pk")


def items_of(receiver, kind: str = "roll") -> list[dict]:
    return [item for got in receiver.got for item in got.json["items"] if item["kind"] == kind]


def test_a_campaign_webhook_gets_public_rolls_signed_and_never_gm_private_or_blind(as_user, gm, player, hero, receiver):
    hook, secret = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    client = as_user(player)
    hidden = [player_roll(client, hero, v) for v in ("gm", "private")] + [player_roll(as_user(gm), hero, "blind")]
    public = player_roll(client, hero, "public")
    run_worker()
    assert len(receiver.got) == 1
    got = receiver.got[0]
    assert got.verify(secret) and not got.verify("another secret")
    assert got.headers["X-Lantern-Delivery"] == got.json["id"]
    assert got.json["campaign"] == {"id": hero.campaign_id, "name": hero.campaign.name}
    [item] = items_of(receiver)
    assert item["roll"]["id"] == public.pk and item["roll"]["outcome"] == public.outcome
    assert {r.visibility for r in hidden} == {"gm", "private", "blind"}
    # The hidden rolls made no delivery at all (nothing to send), not one with their lines left out.
    assert Delivery.objects.get().status == Delivery.Status.DELIVERED


def test_a_character_webhook_is_its_owners_view_of_that_character(
    as_user, gm, player, other_player, hero, rival, receiver
):
    hook, _ = add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url)
    mine = {v: player_roll(as_user(player), hero, v) for v in ("public", "private", "gm")}
    # Only the GM rolls blind from a sheet; a player's blind roll answers a blind request: this one stands for it.
    mine["own-blind"] = player_roll(as_user(player), hero, "private")
    Roll.objects.filter(pk=mine["own-blind"].pk).update(visibility="blind")
    gms_blind = player_roll(as_user(gm), hero, "blind")  # the GM's blind roll for the hero: no line on its sheet
    player_roll(as_user(other_player), rival, "public")  # another character's roll: not this webhook's
    run_worker()
    rolls = {item["roll"]["id"]: item["roll"] for item in items_of(receiver)}
    assert set(rolls) == {r.pk for r in mine.values()}
    assert gms_blind.pk not in rolls
    blind = rolls[mine["own-blind"].pk]
    assert blind["result_hidden"] and "outcome" not in blind and "dice" not in blind
    assert rolls[mine["private"].pk]["outcome"] == mine["private"].outcome


def test_a_players_webhook_never_carries_the_gms_hidden_rolls_on_their_character(as_user, gm, player, hero, receiver):
    add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url)
    gm_client = as_user(gm)
    secret_roll = player_roll(gm_client, hero, "gm")  # the GM rolls for the hero, GM only
    shown = player_roll(gm_client, hero, "public")
    run_worker()
    assert [item["roll"]["id"] for item in items_of(receiver)] == [shown.pk]
    assert all(str(secret_roll.pk) != str(i["roll"]["id"]) for i in items_of(receiver))


def test_vitals_go_to_the_campaign_and_to_that_characters_webhook_only(as_user, gm, player, hero, rival, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, rolls=None, vitals="on")
    add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url, rolls=None, vitals="on")
    for character, who in ((hero, player), (rival, gm)):
        response = as_user(who).post(
            reverse("characters:adjust", args=[character.pk]), {"key": "hp", "delta": "-1"}, **HTMX
        )
        assert response.status_code == 200
    run_worker()
    by_hook: dict[str, list[int]] = {}
    for got in receiver.got:
        scope = "character" if got.json["character"] else "campaign"
        by_hook.setdefault(scope, []).extend(i["character"]["id"] for i in got.json["items"])
    assert sorted(by_hook["campaign"]) == sorted([hero.pk, rival.pk])
    assert by_hook["character"] == [hero.pk]
    hero.refresh_from_db()
    [vitals] = [i for g in receiver.got if g.json["character"] for i in g.json["items"]]
    assert {"key": "hp", "label": vitals["tracks"][0]["label"], "value": hero.state["hp"]}.items() <= (
        vitals["tracks"][0].items()
    )


def test_discord_form_has_content_and_embeds_and_pings_nobody(as_user, gm, player, campaign, receiver):
    hero = make_character(player, campaign, name="@everyone *bold*")
    add_hook(as_user(gm), "webhooks:campaign", campaign.pk, receiver.url, format="discord")
    roll = player_roll(as_user(player), hero, "public")
    run_worker()
    body = receiver.got[0].json
    assert body["allowed_mentions"] == {"parse": []}
    assert set(body) >= {"content", "embeds"} and len(body["embeds"]) == 1
    assert body["embeds"][0]["title"].startswith("\\@everyone \\*bold\\*")
    assert roll.outcome.lower() in body["embeds"][0]["description"].lower()


def test_discord_urls_are_detected():
    from webhooks.sending import is_discord

    assert is_discord("https://discord.com/api/webhooks/1/abc")
    assert is_discord("https://discordapp.com/api/webhooks/1/abc")
    assert not is_discord("https://discord.com.evil.example/api/webhooks/1/abc")
    assert not is_discord("https://example.com/api/webhooks/1/abc")


def test_a_failing_receiver_is_retried_then_given_up_with_the_reason_on_the_page(
    as_user, gm, player, hero, receiver, settings
):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.statuses = [500, 503, 502]
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    player_roll(as_user(player), hero, "public")
    run_worker()
    assert len(receiver.got) == 3
    assert [g.headers["X-Lantern-Attempt"] for g in receiver.got] == ["1", "2", "3"]
    assert len(receiver.unique()) == 1  # one delivery, the same id on every try
    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.FAILED and delivery.attempts == 3
    page = as_user(gm).get(reverse("webhooks:campaign", args=[hero.campaign_id])).content.decode()
    assert "Gave up after 3 tries. The receiver answered 502." in page


def test_a_retry_that_succeeds_records_one_success(as_user, gm, player, hero, receiver):
    receiver.statuses = [500]
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    player_roll(as_user(player), hero, "public")
    run_worker()
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts, len(receiver.got)) == (Delivery.Status.DELIVERED, 2, 2)
    assert Webhook.objects.get().last_error == ""


def test_over_the_rate_an_event_is_not_sent_and_says_why(as_user, gm, player, hero, receiver, settings):
    settings.WEBHOOK_PER_MINUTE = 2
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    client = as_user(player)
    for _ in range(3):
        player_roll(client, hero, "public")
        run_worker()
    assert len(receiver.got) == 2
    dropped = Delivery.objects.get(status=Delivery.Status.DROPPED)
    assert dropped.reason == "More than 2 deliveries in a minute: this one was not sent."


def test_a_write_with_no_webhook_listening_queues_nothing(as_user, player, hero):
    from django_tasks_db.models import DBTaskResult

    player_roll(as_user(player), hero, "public")
    assert not DBTaskResult.objects.exists()


def test_the_journal_events_name_their_kinds():
    assert kind_of(ev.RollMade(roll=1)) == kind_of(ev.RollVoided(roll=1)) == "rolls"
    assert kind_of(ev.SheetChanged(character=1, regions=("vitals", "details"))) == "vitals"
    assert kind_of(ev.SheetChanged(character=1, regions=("inventory",))) is None
    assert kind_of(ev.SheetsChanged(regions=("vitals",))) == "vitals"
    assert kind_of(ev.RequestAsked(request=1, characters=(2,))) == "requests"
    assert kind_of(ev.RequestEnded(request=1, characters=())) == "requests"
    assert kind_of(ev.FightChanged()) == "fight"
    # What a webhook never carries: the GM's notes, the clock, who sits at the table.
    assert {kind_of(e) for e in (ev.NotesChanged(), ev.ClockMoved(), ev.MembersChanged(users=(1,)))} == {None}


# --- server-side request forgery ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://10.0.0.5/hook",
        "http://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://0.0.0.0/hook",
        "http://[::ffff:127.0.0.1]/hook",
    ],
)
def test_private_and_loopback_urls_are_refused_at_saving(as_user, gm, campaign, settings, url):
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    response = as_user(gm).post(
        reverse("webhooks:campaign", args=[campaign.pk]), {"name": "x", "url": url, "format": "auto", "rolls": "on"}
    )
    assert response.status_code == 400
    assert "private or reserved address" in response.content.decode()
    assert not Webhook.objects.exists()


# Issue 35 item 15: an IPv6 address that wraps an IPv4 one reaches that IPv4 address through a relay or a
# translator (6to4, Teredo, NAT64) or the host's own stack (IPv4-mapped, IPv4-compatible): what it wraps is checked.
WRAPPED = [
    ("http://[2002:7f00:1::]/", "127.0.0.1"),  # 6to4
    ("http://[2002:0a00:0001::]/hook", "10.0.0.1"),
    ("http://[2002:a9fe:a9fe::]/latest/meta-data", "169.254.169.254"),
    ("http://[2002:c0a8:101::]/", "192.168.1.1"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "127.0.0.1"),  # Teredo: the client, obfuscated
    ("http://[2001:0:a00:1::]/", "10.0.0.1"),  # Teredo: the server
    ("http://[::ffff:a00:1]/", "10.0.0.1"),  # IPv4-mapped
    ("http://[::a9fe:a9fe]/", "169.254.169.254"),  # IPv4-compatible
    ("http://[64:ff9b::7f00:1]/", "127.0.0.1"),  # NAT64
    ("http://[64:ff9b::ac10:1]/", "172.16.0.1"),
]


@pytest.mark.parametrize(("url", "inner"), WRAPPED)
def test_ipv6_addresses_wrapping_a_private_ipv4_are_refused_at_saving(as_user, gm, campaign, settings, url, inner):
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    response = as_user(gm).post(
        reverse("webhooks:campaign", args=[campaign.pk]), {"name": "x", "url": url, "format": "auto", "rolls": "on"}
    )
    assert response.status_code == 400
    assert f"which carries {inner}): not allowed." in response.content.decode()
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(("url", "inner"), WRAPPED)
def test_ipv6_addresses_wrapping_a_private_ipv4_are_refused_at_every_try(settings, url, inner):
    from webhooks.sending import post

    settings.WEBHOOKS_ALLOW_PRIVATE = False
    answer = post(url, b"{}", {})
    assert not answer.ok and answer.status is None and f"which carries {inner}" in answer.reason


def test_wrapped_public_ipv4_and_plain_public_ipv6_stay_allowed():
    from webhooks.sending import not_public

    assert not_public("2002:808:808::") is None  # 6to4 of a public address
    assert not_public("::ffff:8.8.8.8") is None
    assert not_public("2606:4700::1111") is None
    assert not_public("93.184.216.34") is None
    assert not_public("64:ff9b:1::808:808") == "64:ff9b:1::808:808"  # a network's own NAT64: none is public


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.com/hook", "The URL must start with https:// (or http://)."),
        ("https://" + "a" * 600 + ".com/", "at most 500 characters"),
        ("https://user:pw@example.com/hook", "must not carry a user name"),
    ],
)
def test_other_bad_urls_are_refused_with_a_sentence(as_user, gm, campaign, url, words):
    response = as_user(gm).post(
        reverse("webhooks:campaign", args=[campaign.pk]), {"name": "x", "url": url, "format": "auto", "rolls": "on"}
    )
    assert response.status_code == 400 and words in response.content.decode()


def test_a_url_that_turned_private_is_refused_at_delivery(as_user, gm, player, hero, receiver, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    settings.WEBHOOKS_ALLOW_PRIVATE = False  # e.g. its name now resolves to a private address
    player_roll(as_user(player), hero, "public")
    run_worker()
    assert receiver.got == []
    assert "private or reserved address (127.0.0.1)" in Delivery.objects.get().reason


def test_no_event_kind_chosen_is_refused(as_user, gm, campaign, receiver):
    response = as_user(gm).post(
        reverse("webhooks:campaign", args=[campaign.pk]), {"name": "x", "url": receiver.url, "format": "auto"}
    )
    assert response.status_code == 400 and "Choose at least one kind of event" in response.content.decode()


# --- who may do what -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 404), ("stranger", 404)])
def test_only_the_gm_opens_and_adds_the_campaigns_webhooks(as_user, campaign, stranger, receiver, request, who, status):
    client = as_user(request.getfixturevalue(who))
    url = reverse("webhooks:campaign", args=[campaign.pk])
    response = client.get(url)
    assert response.status_code == status
    posted = client.post(url, {"name": "x", "url": receiver.url, "format": "auto", "rolls": "on"})
    assert posted.status_code == (302 if status == 200 else 404)


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 404), ("other_player", 404), ("stranger", 404)])
def test_only_the_owner_opens_and_adds_a_characters_webhooks(as_user, hero, stranger, receiver, request, who, status):
    client = as_user(request.getfixturevalue(who))
    url = reverse("webhooks:character", args=[hero.pk])
    response = client.get(url)
    assert response.status_code == status
    posted = client.post(url, {"name": "x", "url": receiver.url, "format": "auto", "rolls": "on"})
    assert posted.status_code == (302 if status == 200 else 404)


def test_only_its_owner_removes_a_webhook(as_user, gm, player, campaign, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", campaign.pk, receiver.url)
    assert as_user(player).post(reverse("webhooks:delete", args=[hook.pk])).status_code == 404
    assert as_user(gm).post(reverse("webhooks:delete", args=[hook.pk])).status_code == 302
    assert not Webhook.objects.exists()


def test_a_player_who_left_the_table_gets_nothing_more(as_user, gm, player, hero, receiver):
    from campaigns.models import Membership

    add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url)
    Membership.objects.filter(user=player).delete()  # removed from the table; the character stays linked
    player_roll(as_user(gm), hero, "public")
    run_worker()
    assert receiver.got == []


def test_a_character_at_no_table_cannot_have_a_webhook(as_user, player, receiver):
    loner = make_character(player, None, name="Loner")
    response = as_user(player).post(
        reverse("webhooks:character", args=[loner.pk]),
        {"name": "x", "url": receiver.url, "format": "auto", "rolls": "on"},
    )
    assert response.status_code == 400 and "sits at no table" in response.content.decode()


def test_the_webhooks_page_reads_a_fixed_number_of_queries(
    as_user, gm, player, hero, receiver, django_assert_max_num_queries
):
    client = as_user(gm)
    for n in range(3):
        add_hook(client, "webhooks:campaign", hero.campaign_id, receiver.url, name=f"Hook {n}")
    player_roll(as_user(player), hero, "public")
    run_worker()
    client.get(reverse("webhooks:campaign", args=[hero.campaign_id]))
    with django_assert_max_num_queries(8):
        response = client.get(reverse("webhooks:campaign", args=[hero.campaign_id]))
    assert response.status_code == 200 and response.content.decode().count("data-delivery=") == 3
    assert json.loads(Delivery.objects.first().body)["type"] == "lantern.event"


# --- fights and requests ---------------------------------------------------------------------------------------


def _table_post(client, campaign, action: str, **changes):
    from tests.pages import form_fields

    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    return client.post(action, form_fields(page, action, **changes), **HTMX)


def test_a_fight_starting_and_a_request_reach_the_webhooks_that_want_them(as_user, gm, player, hero, receiver):
    campaign = hero.campaign
    add_hook(as_user(gm), "webhooks:campaign", campaign.pk, receiver.url, rolls=None, fight="on", requests="on")
    gm_client = as_user(gm)
    start = reverse("campaigns:encounter_action", args=[campaign.pk, "start"])
    assert _table_post(gm_client, campaign, start, name="Ghouls").status_code == 200
    ask = reverse("campaigns:request_new", args=[campaign.pk])
    response = _table_post(gm_client, campaign, ask, **{"fix-ability": "BOD", "fix-dn": "6", "characters": [hero.pk]})
    assert response.status_code == 200
    run_worker()
    fights = items_of(receiver, "fight")
    assert fights and fights[0]["fight"]["active"] and fights[0]["fight"]["round"] == 1
    assert "Ghouls" not in json.dumps(fights)  # the fight as a player's sheet shows it: no NPC names or stats
    [requests] = items_of(receiver, "requests")
    assert [(r["asked"], r["answered"]) for r in requests["requests"]] == [(1, 0)]


def test_an_https_url_that_speaks_no_tls_fails_with_a_reason(as_user, gm, player, hero, receiver, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url.replace("http://", "https://"))
    player_roll(as_user(player), hero, "public")
    run_worker()
    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.FAILED
    assert delivery.reason == "Gave up after 1 try. The receiver broke off the exchange (SSLError)."


def test_the_settings_and_edit_pages_link_to_the_webhooks_for_whom_may_add_them(as_user, gm, player, hero):
    settings_url = reverse("campaigns:settings", args=[hero.campaign_id])
    campaign_hooks = reverse("webhooks:campaign", args=[hero.campaign_id])
    assert campaign_hooks in as_user(gm).get(settings_url).content.decode()
    assert campaign_hooks not in as_user(player).get(settings_url).content.decode()
    edit_url = reverse("characters:edit", args=[hero.pk])
    character_hooks = reverse("webhooks:character", args=[hero.pk])
    assert character_hooks in as_user(player).get(edit_url).content.decode()
    assert character_hooks not in as_user(gm).get(edit_url).content.decode()


def test_after_the_table_changes_hands_the_old_gms_webhook_sends_nothing(as_user, gm, player, hero, receiver):
    from campaigns.models import Membership

    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    Membership.objects.filter(user=gm).update(role=Membership.Role.PLAYER)
    Membership.objects.filter(user=player).update(role=Membership.Role.GM)
    assert (
        "data-webhook="
        not in as_user(player).get(reverse("webhooks:campaign", args=[hero.campaign_id])).content.decode()
    )
    player_roll(as_user(player), hero, "public")
    run_worker()
    assert receiver.got == []
