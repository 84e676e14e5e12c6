"""A sheet's live regions, drawn once per version and kind of viewer and kept in Django's cache.

A drawn region depends on the character's row and rows (its version moves with every write to them: items,
hirelings, offers included), on the kind of viewer (``viewer_kind``), and on the table's rule settings and
conditions (read from the campaign row, which the key spells out). So a key is never stale: a change makes new
keys, and the old ones expire unread. What is personal stays out: the CSRF token (``CSRF_SLOT``, filled in per
page and per stream) and "your change: Undo" (drawn fresh when the viewer has one).

The push (campaigns/push.py) and the sheet page (characters.views.sheet) draw through here, so a page opened
after a change is assembled from what the push drew, and a resync costs no drawing at all.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from characters.models import Character
from characters.selectors import Seat, Viewer
from characters.sheet_view import sheet_view
from live.hub import CSRF_SLOT

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
    return f"lantern:region:{region}:{character.pk}:{character.version}:{kind}:{character.table_stamp()}"


def drawn_region(character: Character, kind: str, region: str, draw: Callable[[], str]) -> str:
    """The region as pushed (``hx-swap-oob``, the CSRF slot empty): from the cache, else drawn and kept."""
    key = region_key(character, kind, region)
    html = cache.get(key)
    if html is None:
        html = draw()
        cache.set(key, html, TIMEOUT)
    return html


def sheet_region(user, seat: Seat, region: str, *, rows=None) -> str:
    """One of ``CACHED_REGIONS`` of this sheet as its viewer's kind sees it, drawn for pushing (see the module).
    ``rows``: the character's items and hirelings, when the caller has read them."""

    def draw() -> str:
        view = sheet_view(user, seat, regions=(region,), personal=False, rows=rows)
        return render_to_string(f"characters/sheet.html#{region}", view.context(oob=True, csrf_token=CSRF_SLOT))

    return drawn_region(seat.character, viewer_kind(seat.viewer), region, draw)


def for_page(html: str, csrf_token: str) -> SafeString:
    """A drawn region as the page itself shows it: in place (no out-of-band swap), with the page's token."""
    return mark_safe(html.replace(OOB, "", 1).replace(CSRF_SLOT, csrf_token))  # noqa: S308 - drawn by our templates
