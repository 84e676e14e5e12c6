"""The table's character cards, each drawn once per state and kind of viewer and kept in Django's cache.

A card shows its character's row (name, version, owner; its version moves with every write through the app, its
saved time with an edit in the admin), what the rules read from its sheet (tracks, conditions, slots, the
sheet's problem), its hirelings and pending offers (``Card``), the table's stamp (``data-table``) and, by the
kind of viewer, its +/- and offer forms. The key spells out every one of those, the card's own fields as a
digest of what they hold, so a change to any of them makes a new key: a kept card is never stale, and the old
ones expire unread. The deploy stamp (core/deploy.py) keeps one build's HTML from the next. What is personal
stays out: the CSRF token (``CSRF_SLOT``, filled in per page and per stream).

Cards are kept as pushed (``hx-swap-oob``); the page shows them in place (``in_place``). The page, the party
region and the push (campaigns/push.py) all draw through ``kept_cards``, so a card drawn for one is read by all.
A card with an error (a refused +/-) is personal to that answer and never kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence

from django.core.cache import cache
from django.db.models import Model
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from campaigns.models import Campaign, Membership
from campaigns.table import Card
from characters.region_cache import TIMEOUT, for_page
from core.deploy import deploy_stamp
from live.hub import CSRF_SLOT

# What a card's own fields may hold besides plain values: rows (hirelings, offers) and the rules' records.
_NOT_SHOWN = frozenset({"character", "sheet", "drawn"})  # the row is keyed apart; the sheet shows through tracks


def viewer_kind(membership: Membership | None, user_id: int | None, card: Card) -> str:
    """What a card shows depends on its viewer only through this: the GM, the card's owner, or another player."""
    if membership is not None and membership.is_gm:
        return "gm"
    return "owner" if user_id is not None and card.character.owner_id == user_id else "peer"


def card_key(campaign: Campaign, card: Card, kind: str, table_stamp: str) -> str:
    character = card.character
    saved = character.updated_at.timestamp() if character.updated_at else 0
    row = [character.pk, character.version, f"{saved:.6f}", character.name, character.owner_id]
    row.append(character.owner.username)  # read with the card (select_related): a renamed owner shows at once
    shown = json.dumps([campaign.pk, row, _card_fields(card)], sort_keys=True, default=_plain)
    digest = hashlib.blake2b(shown.encode(), digest_size=12).hexdigest()
    return f"lantern:card:{deploy_stamp()}:{character.pk}:{kind}:{table_stamp}:{digest}"


def _card_fields(card: Card) -> dict:
    return {f.name: getattr(card, f.name) for f in dataclasses.fields(card) if f.name not in _NOT_SHOWN}


def _plain(value: object) -> object:
    """A card field's value as the digest reads it: a row by every field it holds, a record by its fields."""
    if isinstance(value, Model):
        return [type(value).__name__, {k: v for k, v in vars(value).items() if not k.startswith("_")}]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}]
    return repr(value)


def kept_cards(campaign: Campaign, membership: Membership | None, user, cards: Sequence[Card]) -> list[Card]:
    """``cards``, each with its drawing (``Card.drawn``, as pushed) from the cache, the missing ones drawn and
    kept: one cache read for the whole party however big."""
    user_id = getattr(user, "pk", None)
    stamps: dict[str, str] = {}  # the table's stamp, once per page (its settings digest costs a little)
    table_stamp = stamps.setdefault("home", campaign.table_stamp())
    keys = {}
    for card in cards:
        kind = viewer_kind(membership, user_id, card)
        system_stamp = stamps.get(card.character.system)
        if system_stamp is None:
            system_stamp = stamps[card.character.system] = campaign.table_stamp(card.character.system)
        keys[card_key(campaign, card, kind, f"{table_stamp}:{system_stamp}")] = card
    kept = cache.get_many(list(keys))
    drawn = {}
    for key, card in keys.items():
        if key not in kept:
            drawn[key] = draw_card(campaign, membership, user, card)
    if drawn:
        cache.set_many(drawn, TIMEOUT)
    kept.update(drawn)
    return [dataclasses.replace(card, drawn=kept[key]) for key, card in keys.items()]


def draw_card(campaign: Campaign, membership: Membership | None, user, card: Card) -> str:
    """One card drawn afresh, as pushed (out of band, the CSRF slot empty)."""
    context = {"campaign": campaign, "membership": membership, "card": card, "user": user}
    return render_to_string("campaigns/detail.html#card", {**context, "oob": True, "csrf_token": CSRF_SLOT})


def in_place(html: str, csrf_token: object) -> SafeString:
    """A kept card as a page shows it: no out-of-band swap, the page's own token."""
    return for_page(html, str(csrf_token))
