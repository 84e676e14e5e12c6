"""A sheet's live regions, drawn once per version and kind of viewer and kept in Django's cache.

A drawn region depends on the character's row and rows (its version moves with every write to them: items,
hirelings, offers included), on the kind of viewer (``viewer_kind``), on the table's rule settings and
conditions (read from the campaign row, which the key spells out), and on the templates and code that draw it
(the deploy stamp, core/deploy.py: a shared cache never serves one build's HTML to the next). So a key is
never stale: a change makes new keys, and the old ones expire unread. What is personal stays out: the CSRF
token (``CSRF_SLOT``, filled in per page and per stream) and "your change: Undo" (drawn fresh when the viewer
has one).

The push (campaigns/push.py) and the sheet page (characters.views.sheet) draw through here, so a page opened
after a change is assembled from what the push drew, and a resync costs no drawing at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.core.cache import cache
from django.db import connection
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from characters.models import Change, Character
from characters.selectors import Seat, Viewer
from characters.sheet_view import fight_npcs, offered_undo, reverted_by, sheet_view
from characters.templatetags.lantern import fill_times
from core.deploy import deploy_stamp
from live.hub import CSRF_SLOT
from rules import base as rules_base

LOG_SLOT = "__lantern_log__"  # where a kept sheet body takes its viewer's own log
CACHED_REGIONS = ("vitals", "details", "inventory", "hirelings")  # "offers" is drawn afresh: it moves no version
OOB = ' hx-swap-oob="outerHTML"'  # how a pushed region swaps itself in; a page's own region goes without it
TIMEOUT = 60 * 60 * 24  # a key is never stale; this only lets unread ones go


def viewer_kind(viewer: Viewer) -> str:
    """What a region shows depends on the viewer only through this: the GM (or the owner away from a table, who
    runs their own game), the owner, or a player beside them."""
    if viewer.is_gm:
        return "gm"
    return "owner" if viewer.is_owner else "peer"


def region_key(character: Character, kind: str, region: str) -> str:
    return f"lantern:region:{deploy_stamp()}:{region}:{_row_stamp(character)}:{kind}:{character.table_stamp()}"


def _row_stamp(character: Character) -> str:
    """The character as written: its version (every write through the app moves it) and the time its row was
    saved (an edit in the admin, which keeps no version, still moves that)."""
    saved = character.updated_at.timestamp() if character.updated_at else 0
    return f"{character.pk}:{character.version}:{saved:.6f}"


def checked_sheet(character: Character) -> rules_base.Sheet:
    """``character.checked_sheet()``, kept by what it is made of: the row (its version moves with every write to
    its state, items and hirelings), the table's settings and conditions, the build. A roll's inputs, its odds
    boxes and its controls are read against it without reading the items and hirelings again."""
    key = _checked_key(character)
    sheet = cache.get(key)
    if sheet is None:
        sheet = character.checked_sheet()  # a sheet the rules refuse is refused each time, never kept
        cache.set(key, sheet, TIMEOUT)
    return sheet


def keep_checked_sheet(character: Character, sheet: rules_base.Sheet) -> None:
    """Keep the sheet a write just checked as ``checked_sheet`` of the row it saved (call it once the write has
    committed: a write rolled back keeps nothing), so the next roll or write of it reads no items or hirelings.
    The key is ``checked_sheet``'s: the saved row's version and time, the table's stamp, the build."""
    cache.set(_checked_key(character), sheet, TIMEOUT)


def _checked_key(character: Character) -> str:
    return f"lantern:checked:{deploy_stamp()}:{_row_stamp(character)}:{character.table_stamp()}"


def drawn_region(character: Character, kind: str, region: str, draw: Callable[[], str]) -> str:
    """The region as pushed (``hx-swap-oob``, the CSRF slot empty): from the cache, else drawn and kept."""
    key = region_key(character, kind, region)
    html = cache.get(key)
    if html is None:
        html = draw()
        cache.set(key, html, TIMEOUT)
    return html


def sheet_region(user, seat: Seat, region: str, *, rows=None, checked: rules_base.Sheet | None = None) -> str:
    """One of ``CACHED_REGIONS`` of this sheet as its viewer's kind sees it, drawn for pushing (see the module).
    ``rows``: the character's items and hirelings, when the caller has read them. ``checked``: the whole sheet as
    a write just checked it (``Written.sheet``): the vitals and details are drawn from it without any rows."""

    def draw() -> str:
        view = sheet_view(user, seat, regions=(region,), personal=False, rows=rows, checked=checked)
        return render_to_string(f"characters/sheet.html#{region}", view.context(oob=True, csrf_token=CSRF_SLOT))

    return drawn_region(seat.character, viewer_kind(seat.viewer), region, draw)


def sheet_body(seat: Seat, draw: Callable[[], tuple[str, bool]]) -> str:
    """The sheet page's body as its viewer's kind sees it, with ``LOG_SLOT`` for the viewer's own log, the Undo's
    marks and the CSRF slots empty: from the cache, else ``draw()``, which says whether the body lists the other
    characters at the table (a roll form that names one): such a body is kept by their names too."""
    character, viewer = seat.character, seat.viewer
    kind = f"{viewer_kind(viewer)}{'-own' if viewer.is_owner else ''}"  # the owner alone may delete it
    base = f"lantern:sheet:{deploy_stamp()}:{_row_stamp(character)}:{kind}:{character.table_stamp()}"
    key = base
    html = cache.get(key)
    if html == NAMES_THE_PARTY:
        key = f"{base}:{_party_stamp(character, seat.head)}"
        html = cache.get(key)
    if html is None:
        html, names_the_party = draw()
        if names_the_party:
            # The marker goes under the plain key only: the party changed at this version is another body.
            cache.set(base, NAMES_THE_PARTY, TIMEOUT)
            key = f"{base}:{_party_stamp(character, seat.head)}"
        cache.set(key, html, TIMEOUT)
    return html


NAMES_THE_PARTY = "party"  # kept in a body's place: look again with the party's names in the key


def _party_stamp(character: Character, head: int | None = None) -> str:
    """The others at the table and the running fight's NPCs standing, as a roll form lists them: two queries, or
    none while the table's journal stands at ``head`` (read with the row: ``Seat.head``), since every join, leave,
    rename and move of the fight at the table moves it (not inside a transaction: see ``viewer_log``)."""
    if head is None or character.campaign_id is None or connection.in_atomic_block:
        return _party_names(character)
    key = f"lantern:party:{character.campaign_id}:{head}:{character.pk}"
    stamp = cache.get(key)
    if stamp is None:
        stamp = _party_names(character)
        cache.set(key, stamp, LOG_TIMEOUT)
    return stamp


def _party_names(character: Character) -> str:
    others = Character.objects.filter(campaign=character.campaign).exclude(pk=character.pk)
    npcs = list(fight_npcs(character.campaign_id)) if character.campaign_id else []
    names = json.dumps([list(others.order_by("pk").values_list("pk", "name")), npcs])
    return hashlib.blake2b(names.encode(), digest_size=6).hexdigest()


def viewer_log(user, seat: Seat, log: str, head: int, draw: Callable[[], str]) -> str:
    """The sheet's log as this viewer sees it, with the filter asked, while the table's journal stands at ``head``
    (read before the log: what is kept under a head is never older than it): every roll made, voided, undone or
    amended, every rename, seat and role change at the table moves the head. ``draw()`` draws it with its times as
    marks (``TIMES_LATER``); they are written at each serving (``fill_times``). A character at no table has no
    journal: its log is drawn each time, as it is inside a transaction (a test's)."""
    character, viewer = seat.character, seat.viewer
    # Inside a transaction the head does not move with the transaction's own writes (journal.record bumps it once
    # per transaction): it names committed logs only.
    if character.campaign_id is None or connection.in_atomic_block:
        return fill_times(draw())
    key = (
        f"lantern:log:{deploy_stamp()}:{character.pk}:{character.system}:{character.campaign_id}:{head}"
        f":{user.pk}:{viewer.role}:{int(viewer.is_gm)}:{log}"
    )
    html = cache.get(key)
    if html is None:
        html = draw()
        cache.set(key, html, LOG_TIMEOUT)
    return fill_times(html)


LOG_TIMEOUT = 60 * 10  # one viewer's log at one head: kept while they look at the page, then let go


def latest_change(character: Character) -> tuple[Change | None, bool]:
    """The character's latest history entry and whether it was reverted since, kept by its row stamp: every write
    that adds to the history or reverts from it moves the version (services.writes.commit)."""
    key = f"lantern:latest-change:{_row_stamp(character)}"
    found = cache.get(key)
    if found is None:
        change = character.changes.select_related("reverted_by").first()
        reverted = change is not None and reverted_by(change) is not None
        if change is not None:
            change = Change(**{f.attname: getattr(change, f.attname) for f in Change._meta.concrete_fields})
        found = (change, reverted)
        cache.set(key, found, TIMEOUT)
    return found


def undo_for(user, character: Character) -> dict | None:
    """The viewer's Undo, if the sheet offers one now (``{"change", "region"}``), from the kept latest change."""
    change, reverted = latest_change(character)
    return offered_undo(user, change, reverted=reverted)


def undo_mark(region: str) -> str:
    """Where a kept region takes its viewer's Undo (a comment: a pushed region shows none)."""
    return f"<!--undo:{region}-->"


def for_page(html: str, csrf_token: str) -> SafeString:
    """A drawn region as the page itself shows it: in place (no out-of-band swap), with the page's token."""
    return mark_safe(html.replace(OOB, "", 1).replace(CSRF_SLOT, csrf_token))  # noqa: S308 - drawn by our templates
