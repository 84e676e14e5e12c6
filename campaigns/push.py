"""Pushed changes drawn for the pages open in one process: the hub reads the journal and calls ``render_push``.

A change is drawn once per *kind of viewer* that has a page of it open, never once per page: what a region shows
depends only on whether its viewer runs the table (``gm``), owns the character (``owner``) or sits at the table
beside it (``peer``). What differs between two viewers of one kind stays out of pushed HTML: the CSRF token (each
stream puts in its own, ``live.hub.CSRF_SLOT``) and "your change: Undo" (only the page that made the change shows
it, from its own POST's answer). A roll's line is the same for everyone who may see it, and goes only to them.

Each region arrives with ``hx-swap-oob`` and swaps itself in, so an open page makes no request for a change. A
page that opens its stream, or fell behind, gets everything it shows the same way (a ``page`` part).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.template.loader import render_to_string

from campaigns import session_view, stash_view, table_view
from campaigns.announce import SHEET_FIGHT, SHEET_REQUESTS, TABLE_REGIONS_OF
from campaigns.card_cache import kept_cards
from campaigns.models import GM_ROLES, Campaign, Membership
from campaigns.session_views.requests import sheet_fight_context, sheet_requests_context
from campaigns.table import Card, party_cards, roll_log
from characters.models import Character, Roll
from characters.region_cache import checked_sheet, sheet_region
from characters.selectors import Seat, Viewer
from characters.sheet_view import REGIONS as SHEET_REGIONS
from characters.sheet_view import odds_shown, sheet_view
from live import events as ev
from live.events import Event, Seen
from live.hub import CSRF_SLOT, Arrivals, Happened, WholePage, present_user_ids
from rules import SYSTEMS, RulesError
from rules import base as rules_base

Wanted = tuple[int, str]  # (user id, page): "table" or "sheet-<character id>"
PUSHED_SHEET_REGIONS = tuple(region for region in SHEET_REGIONS if region != "log")  # the log gets lines
# The GM's roll requests for a character: drawn on each push, never kept (they expire with the clock).
REQUESTS = SHEET_REQUESTS
FROM_THE_SHEET = ("vitals", "details")  # drawn from the checked sheet alone: no item or hireling line
FRESH_REGIONS = ("offers",)  # drawn on each push, never kept: an offer moves no version (it changes no sheet)
NAMED_REGIONS = (*PUSHED_SHEET_REGIONS, "odds", REQUESTS, SHEET_FIGHT)
# Regions only a sheet shows: a change to them alone redraws no party card on the table page.
SHEET_ONLY = frozenset({REQUESTS, SHEET_FIGHT})
# With "details" (the numbers changed) or "odds" (what the roll forms offer changed: a hireling hired), the odds of
# every roll form at its default inputs travel along: an open form still at its defaults shows them as they come,
# and only a form whose inputs its player changed asks for its own (static/js/lantern.js, applyDefaultOdds).
MOVES_ODDS = frozenset({"details", "odds"})
MAX_PARTS = 1000  # events drawn at once (a burst joined): a bound on the work one push can cause

# The table page's live regions: (partial, its builder, whether only the GM's page has it).
TABLE_REGIONS: dict[str, tuple[str, Callable[..., dict], bool]] = {
    "clock": ("campaigns/detail.html#clock", table_view.clock_context, False),
    "party": ("campaigns/detail.html#party", table_view.party_context, False),
    "party-light": ("campaigns/detail.html#party-light", table_view.light_context, False),
    "members": ("campaigns/detail.html#members", table_view.members_context, False),
    "requests": ("campaigns/_session.html#requests", session_view.requests_context, False),
    "time": ("campaigns/_session.html#time", session_view.time_context, False),
    "summary": ("campaigns/_session.html#summary", session_view.summary_context, False),
    "countdowns": ("campaigns/_session.html#countdowns", session_view.countdowns_context, False),
    "encounter": ("campaigns/_session.html#encounter", session_view.encounter_context, True),
    "notes": ("campaigns/_session.html#notes", session_view.notes_context, True),
    "sessions": ("campaigns/_session.html#sessions", session_view.sessions_context, False),
    "stash": ("campaigns/_stash.html#stash", stash_view.stash_context, False),
}
# Regions whose forms depend on the viewer (the stash offers each player their own characters; the party's cards
# their owner's +/-): drawn per viewer (the party from its kept cards, campaigns.card_cache).
PER_VIEWER_REGIONS = frozenset({"stash", "party"})


@dataclass(frozen=True)
class _Table:
    campaign: Campaign
    seats: dict[int, Membership]  # the members with a page open, by user id (others see nothing)
    gm_ids: frozenset[int]

    def kind(self, user_id: int, character: Character) -> str:
        """What a region of this character shows this viewer depends on this alone."""
        if user_id in self.gm_ids:
            return "gm"
        return "owner" if character.owner_id == user_id else "peer"

    def may_see(self, user_id: int, roll: Roll) -> bool:
        """characters.selectors.rolls_visible_to, for one roll of this table."""
        if roll.roller_id == user_id:
            return True  # a blind roll's roller gets its line without the result (roll_view "roller")
        if roll.visibility == Roll.Visibility.PUBLIC:
            return user_id in self.seats
        return roll.visibility in (Roll.Visibility.GM, Roll.Visibility.BLIND) and user_id in self.gm_ids

    def roll_view(self, user_id: int, roll: Roll) -> str:
        """How this viewer's line of a roll reads (characters.templatetags.lantern.roll_view)."""
        if user_id in self.gm_ids:
            return "gm"
        return "roller" if roll.roller_id == user_id else "peer"


def render_push(campaign_id: int, happened: Sequence[Happened], wanted: Iterable[Wanted]) -> dict[Wanted, str]:
    """The HTML each (user, page) open in this process gets for what ``happened`` (journal events, each with who may
    see it, or the hub's own asks: a whole page, arrivals); pages with nothing new are left out."""
    wanted = list(wanted)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or not wanted:
        return {}
    whole_page = any(isinstance(each, WholePage) for each in happened)
    arrivals = [each for each in happened if isinstance(each, Arrivals)]
    presence = sorted({user for each in arrivals for user in each.users or ()})
    by_seen: dict[Seen, list[Event]] = {}
    for each in happened[:MAX_PARTS]:
        if isinstance(each, Event):
            by_seen.setdefault(each.seen, []).append(each)
    named_by_seen = {seen: _read_events(events) for seen, events in by_seen.items()}
    party: list[int] | None = None
    if any(None in named.changed for named in named_by_seen.values()):  # every character at the table
        party = list(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))
    seats = {
        seat.user_id: seat
        for seat in Membership.objects.filter(campaign=campaign, user_id__in={user for user, _ in wanted})
    }
    gm_ids = frozenset(
        Membership.objects.filter(campaign=campaign, role__in=GM_ROLES).values_list("user_id", flat=True)
    )
    table = _Table(campaign, seats, gm_ids)
    sheets_open = {int(page.removeprefix("sheet-")) for _, page in wanted if page.startswith("sheet-")}
    named_ids = {pk for named in named_by_seen.values() for pk in named.changed if pk is not None}
    characters = {
        character.pk: character
        for character in Character.objects.filter(
            campaign=campaign, pk__in=sheets_open | named_ids | set(party or ())
        ).select_related("campaign", "owner")
    }
    users = {user.pk: user for user in get_user_model().objects.filter(pk__in=seats)}
    roll_ids = sorted({roll for named in named_by_seen.values() for roll in named.rolls})
    lines = _RollLines(campaign, table, roll_ids)
    drawer = _Drawer(table, characters, users)
    merged: dict[tuple[Seen, ...], _Parts] = {}  # what each set of visibilities a viewer has amounts to
    out: dict[Wanted, str] = {}
    for user_id, page in wanted:
        if user_id not in seats:
            continue  # removed meanwhile: their stream is closing
        allowed = tuple(seen for seen in named_by_seen if seen.lets(user_id, is_gm=user_id in gm_ids))
        if allowed not in merged:
            merged[allowed] = _merged([named_by_seen[seen] for seen in allowed], party)
        named = merged[allowed]
        if any(each.users is None for each in arrivals) and "members" not in named.table:
            named.table.append("members")  # too many came or went to name: the whole member list
        changed = named.changed
        html: list[str] = []
        if page == "table":
            if whole_page:
                html.append(drawer.table_page(user_id))
            else:
                html += [drawer.table_region(user_id, region) for region in named.table]
                if presence and "members" not in named.table:
                    html += [drawer.member_row(user_id, member) for member in presence]
                if "party" not in named.table:  # the party's region has every card
                    html += [
                        drawer.card(user_id, characters[pk])
                        for pk, regions in changed.items()
                        if pk in characters and set(regions) - SHEET_ONLY
                    ]
        elif page.startswith("sheet-"):
            character = characters.get(int(page.removeprefix("sheet-")))
            if character is None:
                continue  # not a character of this table
            if whole_page:
                html.append(drawer.sheet_page(user_id, character))
            elif character.pk in changed:
                regions = changed[character.pk]
                html += [drawer.sheet_region(user_id, character, region) for region in regions if region != "odds"]
                if MOVES_ODDS & set(regions):
                    html.append(drawer.default_odds(user_id, character))
        if not whole_page:
            html += lines.for_viewer(user_id, named.rolls)
        if text := "".join(html):
            out[(user_id, page)] = text
    return out


@dataclass
class _Parts:
    """What a set of events changed: each character's sheet regions (None: every character's), the table page's
    regions, and the rolls whose lines are new or drawn again."""

    changed: dict[int | None, list[str]] = field(default_factory=dict)
    table: list[str] = field(default_factory=list)
    rolls: list[int] = field(default_factory=list)

    def add(self, character: int | None, regions: Iterable[str]) -> None:
        mine = self.changed.setdefault(character, [])
        mine += [region for region in regions if region in NAMED_REGIONS and region not in mine]


def _read_events(events: Sequence[Event]) -> _Parts:
    named = _Parts()
    for event in events:
        named.table += [r for r in TABLE_REGIONS_OF.get(type(event), ()) if r in TABLE_REGIONS and r not in named.table]
        if isinstance(event, ev.SheetChanged):
            named.add(event.character, event.regions)
        elif isinstance(event, ev.SheetsChanged):
            named.add(None, event.regions)
        elif isinstance(event, ev.FightChanged) and event.sheets:
            named.add(None, [SHEET_FIGHT])  # every sheet at the table shows the fight
        elif isinstance(event, (ev.ClockMoved, ev.RealtimeChanged)):
            named.add(None, [SHEET_FIGHT])  # and the time of play, when it runs with the wall clock (issue 41)
        elif isinstance(event, ev.ASKED_KINDS):
            for character in event.characters:
                named.add(character, [REQUESTS])
        elif isinstance(event, ev.ROLL_KINDS) and event.roll not in named.rolls:
            named.rolls.append(event.roll)
    return named


def _merged(parts: list[_Parts], party: list[int] | None) -> _Parts:
    """One viewer's parts: those of every visibility they have, "every character" spelt out."""
    out = _Parts()
    for named in parts:
        for character, regions in named.changed.items():
            for pk in party if character is None and party is not None else [character]:
                out.add(pk, regions)
        out.table += [region for region in named.table if region not in out.table]
        out.rolls += [roll for roll in named.rolls if roll not in out.rolls]
    out.changed.pop(None, None)
    return out


class _RollLines:
    """Each roll's line, drawn once per way of seeing it that a page open here needs (the GM's, its roller's, a
    peer's: a blind roll's result and the ways to correct a roll differ), aimed at every log that lists it (see
    data-log in the templates). A roll drawn again (voided, undone, applied: ``revision``) replaces its old line
    where a page shows it."""

    def __init__(self, campaign: Campaign, table: _Table, roll_ids: list[int]) -> None:
        self.campaign, self.table = campaign, table
        found = Roll.objects.filter(campaign=campaign, pk__in=roll_ids) if roll_ids else Roll.objects.none()
        self.rolls = sorted(found.select_related("character", "roller", "voided_by"), key=lambda roll: roll.pk)
        self.drawn: dict[tuple[int, str], str] = {}

    def for_viewer(self, user_id: int, named: list[int]) -> list[str]:
        """The lines of the rolls this viewer's events name, as they may see them."""
        return [
            self.line(roll, self.table.roll_view(user_id, roll))
            for roll in self.rolls
            if roll.pk in named and self.table.may_see(user_id, roll)
        ]

    def line(self, roll: Roll, view: str) -> str:
        if (roll.pk, view) not in self.drawn:
            logs = ["all"]
            if roll.character_id:
                logs.append(f"c{roll.character_id}")
            if roll.roller_id in self.table.gm_ids:
                logs.append("gm")
            targets = ",".join(f"[data-log~={log}]" for log in logs)
            context = {"roll": roll, "targets": targets, "system_id": self.campaign.system, "roll_view": view}
            self.drawn[roll.pk, view] = render_to_string("campaigns/_pushed_roll.html", context)
        return self.drawn[roll.pk, view]


@dataclass(frozen=True)
class _Reader:
    """What the table's region builders read of a request: who is looking (the log's rows are theirs)."""

    user: Any


class _Drawer:
    """Draws each (character, kind of viewer, region) once however many pages want it."""

    def __init__(self, table: _Table, characters: dict[int, Character], users: dict) -> None:
        self.table, self.characters, self.users = table, characters, users
        self.drawn: dict[tuple, str] = {}
        self.sheets: dict[int, rules_base.Sheet | None] = {}  # each character's checked sheet, read once per push
        self.cards: dict[int, Card] = {}
        self.members: dict[int, Membership] | None = None  # the table's members, read once for their rows
        self.present: set[int] = set()

    def _seat(self, user_id: int, character: Character) -> Seat:
        role = self.table.seats[user_id].role
        own, gm = character.owner_id == user_id, user_id in self.table.gm_ids
        return Seat(character, Viewer(user_id, role, own, own or gm, gm))

    def sheet_region(self, user_id: int, character: Character, region: str) -> str:
        key = ("sheet", character.pk, self.table.kind(user_id, character), region)
        if key not in self.drawn:
            seat = self._seat(user_id, character)
            if region == REQUESTS:
                context = sheet_requests_context(self.users[user_id], character, can_edit=seat.viewer.can_edit)
                context.update(oob=True, csrf_token=CSRF_SLOT)
                self.drawn[key] = render_to_string("campaigns/_sheet_requests.html#sheet-requests", context)
            elif region == SHEET_FIGHT:  # drawn on each push, never kept: the fight moves no version
                context = {**sheet_fight_context(character), "oob": True}
                self.drawn[key] = render_to_string("campaigns/_sheet_fight.html#sheet-fight", context)
            elif region in FRESH_REGIONS:
                view = sheet_view(self.users[user_id], seat, regions=(region,), personal=False)
                context = view.context(oob=True, csrf_token=CSRF_SLOT)
                self.drawn[key] = render_to_string(f"characters/sheet.html#{region}", context)
            elif region in FROM_THE_SHEET:  # from the sheet kept for this version: no rows read for any kind
                checked = self._checked_sheet(character)
                self.drawn[key] = sheet_region(self.users[user_id], seat, region, checked=checked)
            else:
                self.drawn[key] = sheet_region(self.users[user_id], seat, region)
        return self.drawn[key]

    def _checked_sheet(self, character: Character) -> rules_base.Sheet | None:
        """The character's sheet, checked once for every kind of viewer this push draws (None: unreadable)."""
        if character.pk not in self.sheets:
            try:  # as kept for this version (the write that made it kept it): no items or hirelings read
                self.sheets[character.pk] = checked_sheet(character)
            except RulesError:
                self.sheets[character.pk] = None  # the sheet shows why; its forms have no odds to show
        return self.sheets[character.pk]

    def default_odds(self, user_id: int, character: Character) -> str:
        """The odds of each roll this viewer's panel offers, at its default inputs (the panel is for editors)."""
        viewer = self._seat(user_id, character).viewer
        if not viewer.can_edit:
            return ""
        key = ("odds", character.pk, self.table.kind(user_id, character))
        if key not in self.drawn:
            rules = SYSTEMS.get(character.system)
            sheet = self._checked_sheet(character) if rules is not None else None
            boxes = []
            if rules is not None and sheet is not None:
                for procedure in rules.procedures().values():
                    if procedure.gm_only and not viewer.is_gm:
                        continue
                    # with the chips of the conditions that change them: a condition's change brings them along
                    shown = odds_shown(character, procedure, sheet, {})
                    boxes.append((procedure.key, shown.odds, shown.chips))
            context = {"boxes": boxes, "system_id": character.system}
            self.drawn[key] = render_to_string("characters/_default_odds.html", context)
        return self.drawn[key]

    def sheet_page(self, user_id: int, character: Character) -> str:
        """Everything a sheet shows that changes: its regions, and its log as this viewer sees it."""
        regions = (*PUSHED_SHEET_REGIONS, REQUESTS, SHEET_FIGHT)
        html = [self.sheet_region(user_id, character, region) for region in regions]
        seat = self._seat(user_id, character)
        view = sheet_view(self.users[user_id], seat, regions=("log",), personal=False)
        html.append(render_to_string("characters/sheet.html#log", view.context(oob=True, csrf_token=CSRF_SLOT)))
        return "".join(html)

    def card(self, user_id: int, character: Character) -> str:
        if character.pk not in self.cards:
            self.cards.update(
                (card.character.pk, card) for card in party_cards(self.table.campaign, only_id=character.pk)
            )
        card = self.cards.get(character.pk)
        return "" if card is None else self._draw_card(user_id, card)

    def _draw_card(self, user_id: int, card: Card) -> str:
        key = ("card", card.character.pk, self.table.kind(user_id, card.character))
        if key not in self.drawn:
            seat, user = self.table.seats[user_id], self.users[user_id]
            self.drawn[key] = kept_cards(self.table.campaign, seat, user, [card])[0].drawn
        return self.drawn[key]

    def table_region(self, user_id: int, region: str) -> str:
        """One of the table page's regions, drawn once for the GM and once for the players; the GM's own panels
        (the encounter's NPCs, the notes) never for a player."""
        seat = self.table.seats[user_id]
        template, build, gm_only = TABLE_REGIONS[region]
        if gm_only and not seat.is_gm:
            return ""
        key = ("table", region, user_id if region in PER_VIEWER_REGIONS else seat.is_gm)
        if key not in self.drawn:
            context = build(_Reader(self.users[user_id]), self.table.campaign, seat)
            context.update(oob=True, csrf_token=CSRF_SLOT, user=self.users[user_id])
            self.drawn[key] = render_to_string(template, context)
        return self.drawn[key]

    def member_row(self, user_id: int, member: int) -> str:
        """One member's row of the table page's member list (here or away), as the GM or a player sees it."""
        seat = self.table.seats[user_id]
        key = ("member", member, seat.is_gm)
        if key not in self.drawn:
            if self.members is None:
                campaign = self.table.campaign
                self.members = {m.user_id: m for m in campaign.memberships.select_related("user")}
                self.present = present_user_ids(campaign.pk)
            row = self.members.get(member)
            context: dict[str, Any] = {"campaign": self.table.campaign, "membership": seat, "seat": row}
            context.update(present=self.present, row_oob=True, csrf_token=CSRF_SLOT)
            self.drawn[key] = "" if row is None else render_to_string("campaigns/detail.html#member", context)
        return self.drawn[key]

    def table_page(self, user_id: int) -> str:
        """Every live region of the table page, and the log, as this viewer sees them."""
        campaign, seat = self.table.campaign, self.table.seats[user_id]
        html = [self.table_region(user_id, region) for region in TABLE_REGIONS]
        rolls, has_older = roll_log(self.users[user_id], campaign, role=seat.role)
        context = {"campaign": campaign, "membership": seat, "system_id": campaign.system, "rolls": rolls}
        html.append(render_to_string("campaigns/detail.html#log", {**context, "has_older": has_older, "oob": True}))
        return "".join(html)
