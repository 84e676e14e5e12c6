"""What a webhook is sent: the items of one journal entry as its audience sees them, in Lantern's JSON or Discord's
form.

A campaign's webhook posts to wherever its GM points it, often a channel more people read than sit at the
table, so it carries only what every member sees: public rolls (never GM-only, private or blind ones), the
tracks every sheet shows, the requests and the fight as a player sees them. A character's webhook is its
owner's view of that character: its rolls as the owner's log shows them (their own private and GM-only rolls,
a blind roll without its result), its vitals, the requests and the fight as they see them. GM notes, NPC stat
blocks and held changes never leave: each event's ``seen`` (live.events) is the first gate, the row's own
visibility the second.

Lantern's JSON (docs/webhooks.md)::

    {"id": "<delivery uuid>", "type": "lantern.event", "occurred_at": "<ISO 8601>",
     "campaign": {"id": 1, "name": "…"}, "character": null | {"id": 2, "name": "…"},
     "items": [{"kind": "roll", "roll": {…}}, {"kind": "vitals", …}, {"kind": "requests", …}, {"kind": "fight", …}]}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch
from django.utils import timezone

from campaigns.chronicle import read as chronicle_read
from campaigns.chronicle.build import PUBLIC_READER
from campaigns.models import GM_ROLES, Campaign, Encounter, PlaySession, RollRequest, RollRequestAnswer
from characters.models import Character, Roll
from live import events as ev
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from webhooks.models import Webhook
from webhooks.sending import is_discord

EMBEDS_MAX = 10  # Discord's own bound on embeds per message
OUTCOME_COLOURS = {"success": 0x2E7D32, "pass": 0x2E7D32, "hit": 0x2E7D32, "fail": 0xC62828, "miss": 0xC62828}


@dataclass(frozen=True)
class Audience:
    """Whom one webhook speaks for: the table at large (``user_id`` None), or one owner and their seat."""

    user_id: int | None
    role: str | None
    character_id: int | None

    @classmethod
    def of(cls, hook: Webhook, roles: dict[int, str]) -> Audience | None:
        """None when its owner may no longer see what it would send (left the table, gave the character up)."""
        if hook.character_id is None:
            return cls(None, None, None) if roles.get(hook.owner_id) in GM_ROLES else None
        character = hook.character
        if character is None or character.owner_id != hook.owner_id or character.campaign_id != hook.campaign_id:
            return None
        role = roles.get(hook.owner_id)
        return cls(hook.owner_id, role, hook.character_id) if role is not None else None

    def sees(self, event: ev.Event) -> bool:
        """Whether this audience may know the event happened (its ``seen``): the table at large, public events
        only; an owner, what their seat lets them know (their own private and GM-only rolls, a blind one's line)."""
        if self.user_id is None:
            return event.seen.who == "public"
        return event.seen.lets(self.user_id, is_gm=self.role in GM_ROLES)

    def asks_about(self, request: RollRequest) -> bool:
        """A character's webhook carries the requests that ask its character; the table's, every one."""
        return self.character_id is None or any(a.character_id == self.character_id for a in request.answers.all())

    def roll_view(self, roll: Roll) -> str | None:
        """How this audience sees a roll (as characters.templatetags.lantern.roll_view), None for not at all."""
        if self.user_id is None:
            return "peer" if roll.visibility == Roll.Visibility.PUBLIC else None
        if roll.character_id != self.character_id:
            return None  # a character's webhook carries that character's rolls only
        if self.role in GM_ROLES:
            return "gm"
        if roll.roller_id == self.user_id:
            return "roller"
        return "peer" if roll.visibility == Roll.Visibility.PUBLIC else None


def kind_of(event: ev.Event) -> str | None:
    """Which kind of webhook event (Webhook.KINDS) a journal event is, if any: nothing else ever leaves."""
    if isinstance(event, ev.ROLL_KINDS):
        return "rolls"
    if isinstance(event, (ev.SheetChanged, ev.SheetsChanged)) and "vitals" in event.regions:
        return "vitals"
    if isinstance(event, ev.ASKED_KINDS):
        return "requests"
    if isinstance(event, ev.FightChanged):
        return "fight"
    if isinstance(event, ev.SessionEnded):
        return "sessions"
    return None


def wants(hook: Webhook, event: ev.Event) -> bool:
    """Whether the webhook asked for this kind of event."""
    kind = kind_of(event)
    return kind is not None and bool(getattr(hook, kind))


class Rows:
    """The rows one journal entry's events name, read once however many webhooks it goes to."""

    def __init__(self, campaign: Campaign, events: Iterable[ev.Event]) -> None:
        self.campaign = campaign
        self.events = [event for event in events if kind_of(event) is not None]
        roll_ids = {event.roll for event in self.events if isinstance(event, ev.ROLL_KINDS)}
        request_ids = {event.request for event in self.events if isinstance(event, ev.ASKED_KINDS)}
        character_ids = {event.character for event in self.events if isinstance(event, ev.SheetChanged)}
        party = any(isinstance(event, ev.SheetsChanged) for event in self.events)
        self.rolls = list(
            Roll.objects.filter(pk__in=roll_ids, campaign=campaign).select_related("character", "roller").order_by("pk")
        )
        self.vitals: list[dict[str, Any]] = []
        if character_ids or party:
            characters = Character.objects.filter(campaign=campaign).select_related("campaign")
            if not party:
                characters = characters.filter(pk__in=character_ids)
            for character in characters.prefetch_related("items", "hirelings"):
                vitals = _vitals(character)
                if vitals is not None:
                    self.vitals.append(vitals)
        self._requests = _requests(campaign, request_ids) if request_ids else []
        fight = any(isinstance(event, ev.FightChanged) for event in self.events)
        self._fight = Encounter.objects.filter(campaign=campaign, active=True).first() if fight else None
        ended = [event.session for event in self.events if isinstance(event, ev.SessionEnded)]
        self._chronicles = _chronicles(campaign, ended) if ended else []

    def items(self, hook: Webhook, audience: Audience) -> list[dict[str, Any]]:
        """What this webhook is sent of the entry: the kinds it wants, of the events its audience may know of."""
        seen = [event for event in self.events if audience.sees(event) and wants(hook, event)]
        items: list[dict[str, Any]] = []
        rolls = {event.roll for event in seen if isinstance(event, ev.ROLL_KINDS)}
        for roll in self.rolls:
            view = audience.roll_view(roll) if roll.pk in rolls else None
            if view is not None:
                items.append({"kind": "roll", "roll": _roll(roll, view, self.campaign.system)})
        party = any(isinstance(event, ev.SheetsChanged) for event in seen)
        sheets = {event.character for event in seen if isinstance(event, ev.SheetChanged)}
        for vitals in self.vitals:
            shown = party or vitals["character"]["id"] in sheets
            if shown and audience.character_id in (None, vitals["character"]["id"]):
                items.append({"kind": "vitals", **vitals})
        asked = {event.request for event in seen if isinstance(event, ev.ASKED_KINDS)}
        shown_requests = [
            _request(row, audience) for row in self._requests if row.pk in asked and audience.asks_about(row)
        ]
        if shown_requests:
            items.append({"kind": "requests", "requests": shown_requests})
        if any(isinstance(event, ev.FightChanged) for event in seen):
            items.append({"kind": "fight", "fight": _fight(self._fight, audience.character_id)})
        ended = {event.session for event in seen if isinstance(event, ev.SessionEnded)}
        if audience.user_id is None:  # the public chronicle goes to the table's webhooks only
            items += [item for number, item in self._chronicles if number in ended]
        return items


def _words(system_id: str, key: str) -> str:
    """An outcome in its own system's words (issue 42: at a mixed table each roll's character's system)."""
    system = SYSTEMS.get(system_id)
    return system.outcome_label(key) if system is not None else key.replace("_", " ")


def _roll(roll: Roll, view: str, home: str = "") -> dict[str, Any]:
    who = (
        roll.character.name
        if roll.character is not None
        else (roll.roller.username if roll.roller is not None else "") or "GM"
    )
    line: dict[str, Any] = {
        "id": roll.pk,
        "by": who,
        "character_id": roll.character_id,
        "label": roll.label,
        "visibility": roll.visibility,
        "by_hand": roll.by_hand,
        "voided": roll.voided_at is not None,
        "revision": roll.revision,
        "at": roll.created_at.isoformat(),
    }
    if roll.visibility == Roll.Visibility.BLIND and view != "gm":
        return {**line, "result_hidden": True}  # its roller's log says it was rolled, never what it showed
    return {
        **line,
        "result_hidden": False,
        "dice": roll.dice,
        "total": roll.total,
        "outcome": roll.outcome,
        # its own character's system's words (the home system's for the GM's rolls)
        "outcome_words": _words(roll.character.system if roll.character is not None else home, roll.outcome),
        "summary": roll.summary,
        "odds": roll.odds,
    }


def _vitals(character: Character) -> dict[str, Any] | None:
    rules = SYSTEMS.get(character.system)
    if rules is None:
        return None
    try:
        sheet = character.to_sheet()
        rules_base.check_sheet(rules, sheet)
        tracks, conditions = rules.tracks(sheet), rules.conditions(sheet)
    except RulesError:
        return None
    return {
        "character": {"id": character.pk, "name": character.name},
        "tracks": [{"key": t.key, "label": t.label, "value": t.shown, "maximum": t.maximum} for t in tracks],
        "conditions": list(conditions),
    }


def _chronicles(campaign: Campaign, numbers: list[int]) -> list[tuple[int, dict[str, Any]]]:
    """Each ended session's chronicle as the table at large reads it (the public reader: no GM-only, blind or
    private roll, no private field), built from the journal now, like every payload."""
    out = []
    for session in PlaySession.objects.filter(campaign=campaign, number__in=numbers).order_by("number"):
        chronicle = chronicle_read.records(session, campaign).for_reader(PUBLIC_READER)
        item = {"number": session.number, "title": f"Session {session.number}", "text": chronicle.text()}
        out.append((session.number, {"kind": "chronicle", "chronicle": item}))
    return out


def _requests(campaign: Campaign, ids: set[int]) -> list[RollRequest]:
    """The requests this event changed (asked, answered, cancelled), never the rest of the evening's."""
    answers = RollRequestAnswer.objects.select_related("character", "roll").order_by("character__name", "pk")
    rows = RollRequest.objects.filter(campaign=campaign, pk__in=ids).order_by("pk")
    return list(rows.prefetch_related(Prefetch("answers", queryset=answers)))


def _request(request: RollRequest, audience: Audience) -> dict[str, Any]:
    """One request as its audience sees it: who was asked, who answered and how (a blind request's outcomes
    are the GM's alone), and where it stands."""
    answers = list(request.answers.all())
    answered = [a for a in answers if a.answered_at is not None]
    now = timezone.now()
    if request.status == RollRequest.Status.CANCELLED:
        status = "cancelled"
    elif len(answered) == len(answers):
        status = "answered"
    else:
        status = "open" if request.is_open(now) else "expired"
    hidden = request.blind and audience.role not in GM_ROLES
    group_hidden = request.group_hidden(gm=audience.role in GM_ROLES)
    return {
        "id": request.pk,
        "label": request.label,
        "shown": request.shown,
        "blind": request.blind,
        "status": status,
        "asked": len(answers),
        "answered": len(answered),
        "expires_at": request.expires_at.isoformat(),
        # The latest answer first: the one this event is most likely about.
        "answers": [
            {
                "character": {"id": a.character_id, "name": a.character.name},
                "answered": a.answered_at is not None,
                "outcome": None if a.answered_at is None or hidden else a.outcome,
                "outcome_words": None if a.answered_at is None or hidden else _words(a.character.system, a.outcome),
                # the roll asked of this character's own system (a mixed table asks each system its own)
                "asked": request.asked_of(a.character.system).label,
                "by_hand": a.roll is not None and a.roll.by_hand,
                "at": a.answered_at.isoformat() if a.answered_at is not None else None,
            }
            for a in sorted(answered, key=lambda a: a.answered_at or now, reverse=True)
            + [a for a in answers if a.answered_at is None]
        ],
        "group_outcome": "" if group_hidden else request.group_outcome,
    }


def _fight(encounter: Encounter | None, character_id: int | None) -> dict[str, Any]:
    """The fight as a player's sheet shows it: its round and whose turn, and what last hit this character."""
    if encounter is None:
        return {"active": False}
    fight: dict[str, Any] = {"active": True, "round": encounter.round, "order": encounter.order_summary}
    if character_id is not None and str(character_id) in (encounter.hits or {}):
        fight["hit"] = str(encounter.hits[str(character_id)])
    return fight


def body(hook: Webhook, delivery_id: str, occurred_at: str, items: list[dict[str, Any]]) -> str:
    """The exact text posted: Discord's form for a Discord webhook (or by choice), Lantern's JSON otherwise."""
    if hook.format == Webhook.Format.DISCORD or (hook.format == Webhook.Format.AUTO and is_discord(hook.url)):
        return json.dumps(discord(hook, items))
    character = {"id": hook.character_id, "name": hook.character.name} if hook.character is not None else None
    return json.dumps(
        {
            "id": delivery_id,
            "type": "lantern.event",
            "occurred_at": occurred_at,
            "campaign": {"id": hook.campaign_id, "name": hook.campaign.name},
            "character": character,
            "items": items,
        }
    )


_MARKDOWN = re.compile(r"([\\*_~`|>#\[\]()@])")


def unmarked(text: Any) -> str:
    """Text Discord shows as typed: no markdown, no mentions (a character called @everyone pings nobody)."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def discord(hook: Webhook, items: list[dict[str, Any]]) -> dict[str, Any]:
    embeds = [embed for item in items for embed in _embeds(item)][:EMBEDS_MAX]
    return {
        "username": "Lantern",
        "content": unmarked(hook.campaign.name),
        "embeds": embeds,
        "allowed_mentions": {"parse": []},
    }


def _embeds(item: dict[str, Any]) -> list[dict[str, Any]]:
    if item["kind"] == "requests":  # one embed per request the event changed
        return [_request_embed(request) for request in item["requests"]]
    return [_embed(item)]


REQUEST_STANDING = {
    "cancelled": "Cancelled by the GM.",
    "expired": "Ran out of time before everyone rolled.",
}


def _request_embed(request: dict[str, Any]) -> dict[str, Any]:
    """The request that changed: each character asked, who rolled and how, and where it stands."""
    title = f"Roll request: {request['label']}" + (f" ({request['shown']})" if request["shown"] else "")
    lines = []
    for answer in request["answers"]:
        name = unmarked(answer["character"]["name"])
        if not answer["answered"]:
            lines.append(f"· {name}: not rolled yet")
            continue
        words = answer.get("outcome_words") or answer["outcome"]
        how = "rolled blind, the GM has the result" if answer["outcome"] is None else unmarked(words)
        lines.append(f"✓ {name}: {how}" + (" (dice rolled by hand)" if answer["by_hand"] else ""))
    if request["status"] == "answered":
        group = f" Together: {unmarked(request['group_outcome'])}." if request["group_outcome"] else ""
        lines.append(f"Everyone has rolled.{group}")
    else:
        lines.append(REQUEST_STANDING.get(request["status"], f"{request['answered']} of {request['asked']} rolled."))
    return {"title": unmarked(title + (" · blind" if request["blind"] else "")), "description": "\n".join(lines)}


def _embed(item: dict[str, Any]) -> dict[str, Any]:
    if item["kind"] == "roll":
        roll = item["roll"]
        title = f"{roll['by']}: {roll['label']}"
        if roll["result_hidden"]:
            return {"title": unmarked(title), "description": "Rolled blind: the GM has the result."}
        dice = " ".join(str(d.get("face", "")) for d in roll["dice"] if isinstance(d, dict))
        words = roll.get("outcome_words") or roll["outcome"]
        text = f"🎲 {dice} → **{unmarked(words)}**" if dice else f"**{unmarked(words)}**"
        if roll["summary"]:
            text += f"\n{unmarked(roll['summary'])}"
        if roll["voided"]:
            text += "\n(voided)"
        embed = {"title": unmarked(title), "description": text}
        colour = OUTCOME_COLOURS.get(str(roll["outcome"]).lower())
        return {**embed, "color": colour} if colour else embed
    if item["kind"] == "chronicle":  # Discord holds 4096 characters in an embed's description
        chronicle = item["chronicle"]
        return {"title": unmarked(chronicle["title"]), "description": unmarked(chronicle["text"])[:4096]}
    if item["kind"] == "vitals":
        shown = ", ".join(
            f"{t['label']} {t['value']}" + (f"/{t['maximum']}" if t["maximum"] is not None else "")
            for t in item["tracks"]
        )
        if item["conditions"]:
            shown += " · " + ", ".join(item["conditions"])
        return {"title": unmarked(item["character"]["name"]), "description": unmarked(shown)}
    fight = item["fight"]
    if not fight["active"]:
        return {"title": "Fight", "description": "The fight is over."}
    text = f"Round {fight['round']}" + (f" · {fight['order']}" if fight.get("order") else "")
    if fight.get("hit"):
        text += f"\n{fight['hit']}"
    return {"title": "Fight", "description": unmarked(text)}
