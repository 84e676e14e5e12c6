"""Template helpers for odds and dice."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from django import template
from django.template.defaultfilters import slugify
from django.urls import reverse
from django.utils import timezone
from django.utils.html import conditional_escape, escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.timesince import timesince
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]  # in Django; not in its stubs

from rules import SYSTEMS, system_for

register = template.Library()


@register.filter
def percent(value) -> str:
    """An exact probability as a percentage with one decimal: 13/16 → "81.3%"."""
    if value is None:
        return ""
    return f"{float(round(Fraction(value) * 100, 1)):.1f}%"


@register.filter
def fraction(value) -> str:
    """The exact reduced fraction: 13/16."""
    if value is None:
        return ""
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


@register.filter
def outcome_label(value: str, system_id: str = "") -> str:
    """An outcome key in words, the system's way when it is named: "new_max" → "new maximum stamina"."""
    if system_id in SYSTEMS:
        return system_for(system_id).outcome_label(str(value))
    return str(value).replace("_", " ")


@register.filter
def possible_outcomes(odds, system_id: str = "") -> list[tuple[str, str, Fraction]]:
    """The outcomes that can happen, as (key, words, probability): an outcome at 0 is not shown."""
    if odds is None:
        return []
    return [(key, outcome_label(key, system_id), p) for key, p in odds.outcomes if p > 0]


# --- rolling where the thing is: a stat, a weapon or a spell on the sheet opens its roll (static/js/lantern.js) ---


def _posted(value) -> str:
    """An input as its form posts it: a yes ticks the box ("on"), a no leaves it unticked ("")."""
    if isinstance(value, bool):
        return "on" if value else ""
    return str(value)


@register.simple_tag(takes_context=True)
def roll_here(context, procedure: str, label, **inputs) -> SafeString:
    """``label`` as a link that opens ``procedure``'s roll control with ``inputs`` filled in, for those who may
    roll from this sheet; for the others, the label as it was. Without JavaScript it leads to the Roll part, to
    fill in by hand; printed, it is the word it was."""
    viewer = context.get("viewer")
    if viewer is None or not viewer.can_edit:
        return conditional_escape(label)
    sets = format_html_join("", ' data-set-{}="{}"', ((name, _posted(value)) for name, value in inputs.items()))
    return format_html(
        '<a class="roll-here" href="#part-roll" data-roll-to="{}"{} aria-label="Roll: {}">{}</a>',
        procedure,
        sets,
        label,
        label,
    )


@register.simple_tag(takes_context=True)
def stat_roll(context, stat: str, label) -> SafeString:
    """A stat's name as the button that opens its test (the system's quick roll for it), when it has one."""
    quick = (context.get("stat_rolls") or {}).get(stat)
    if quick is None:
        return conditional_escape(label)
    return roll_here(context, quick.procedure, label, **quick.params)


@register.simple_tag(takes_context=True)
def item_roll(context, item) -> SafeString:
    """An item's name as the button that opens the roll it is used in (a weapon: its attack), when it has one."""
    found = (context.get("item_rolls") or {}).get(str(item.pk))
    if found is None:
        return conditional_escape(item.name)
    procedure, name = found
    return roll_here(context, procedure, item.name, **{name: item.pk})


# Outcomes a player hopes for in so many words: their odds read "45 % to succeed". Any other pair names what is
# at stake ("dying: 50 % · dies: 50 %"), so a harmful roll never calls death a failure to succeed.
SUCCESS_WORDS = frozenset({"pass", "win", "hit", "success", "improved"})


@register.filter
def reads_as_success(odds) -> bool:
    """Whether the odds are a plain chance of success: two outcomes, the hoped-for one a success by name."""
    if odds is None or len(odds.outcomes) != 2 or len(odds.success_keys) != 1:
        return False
    return odds.success_keys[0] in SUCCESS_WORDS


@register.filter
def signed(value) -> str:
    """A change as a person reads it: "+3", "−20" (a true minus sign), "0"."""
    number = int(value)
    return f"+{number}" if number > 0 else f"−{-number}" if number < 0 else "0"


@register.filter
def ago(moment) -> str:
    """How long ago, in the fewest words: "just now", "3 minutes ago", "2 days ago"."""
    if moment is None:
        return ""
    seconds = (timezone.now() - moment).total_seconds()
    if seconds < 60:
        return "just now"
    return f"{timesince(moment, depth=1)} ago"


@register.filter
def game_time(minutes, seconds=0) -> str:
    """Game minutes as "day 2, 13:05" (and the seconds past the minute, when a unit counts them: "13:05:30")."""
    minutes = int(minutes or 0)
    days, rest = divmod(minutes, 24 * 60)
    past = f":{int(seconds):02d}" if seconds else ""
    return f"day {days + 1}, {rest // 60:02d}:{rest % 60:02d}{past}"


@register.filter
def game_clock(total_seconds) -> str:
    """Game seconds since the start as ``game_time`` writes them (static/js/clock.js writes them the same way)."""
    minutes, seconds = divmod(int(total_seconds or 0), 60)
    return game_time(minutes, seconds)


@register.filter
def seconds_words(seconds) -> str:
    """Game seconds as a person says them: "40 seconds", "2 minutes", "1 minute 30 seconds"."""
    minutes, rest = divmod(int(seconds or 0), 60)
    parts = [f"{minutes} minute{'s' if minutes != 1 else ''}"] if minutes else []
    if rest or not minutes:
        parts.append(f"{rest} second{'s' if rest != 1 else ''}")
    return " ".join(parts)


@register.filter
def attr_pk(obj):
    return getattr(obj, "pk", "")


def _count(one: str, many: str) -> Any:
    return lambda n: (one if n == 1 else many).format(n=n)


# Numbers an item keeps that a key and a number don't say ("eaten 1"): in the words a player reads.
COUNTED = {
    "eaten": _count("{n} day eaten", "{n} days eaten"),
    "burned": _count("burned {n} minute", "burned {n} minutes"),
    "days": _count("food for {n} day", "food for {n} days"),
    "turns": _count("burns {n} turn", "burns {n} turns"),
    "lp": _count("{n} light point", "{n} light points"),
    "shots": _count("{n} shot", "{n} shots"),
    "rounds": _count("for {n} round", "for {n} rounds"),
    "hd": _count("{n} hit die", "{n} hit dice"),
    "min_str": _count("needs STR {n}", "needs STR {n}"),
    "miles_per_day": _count("{n} mile a day", "{n} miles a day"),
    "slots_ridden": _count("{n} slot when ridden", "{n} slots when ridden"),
    "slots_unridden": _count("{n} slot when led", "{n} slots when led"),
    "ml": _count("morale {n}", "morale {n}"),
    "value": _count("worth {n}", "worth {n}"),
    "current_AC": _count("AC now {n}", "AC now {n}"),
}


@register.filter
def item_notes(data, holder: bool = True) -> str:
    """An item's system numbers in words: {"steel_die": 6, "bulky": True} → "steel die d6 · bulky". ``holder``
    False (a player beside the character): a light's time burned is left out, as its time left is (issue 41)."""
    notes = []
    if not isinstance(data, dict):  # a sheet that fails validation still lists its items
        return ""
    for key, value in data.items():
        if value in (None, False, "", 0) or (key == "burned" and not holder):
            continue
        words = str(key).replace("_", " ")
        if key in COUNTED and isinstance(value, int) and not isinstance(value, bool):
            notes.append(COUNTED[key](value))
        elif value is True:
            notes.append(words)
        elif key.endswith("_die") or key in {"damage", "die"}:
            notes.append(f"{words} d{value}" if str(value).isdigit() else f"{words} {value}")
        else:
            notes.append(f"{words} {value}")
    return " · ".join(notes)


@register.simple_tag(takes_context=True)
def roll_line(context, roll) -> SafeString:
    """One roll of a log, written in Python rather than as a template: a log draws 15-50 of these,
    each with a dozen dice, and the template's per-variable work was most of a log's render time.

    A blind roll shows its result only to the GM (``roll_view``); a voided one is struck through with who voided
    it and why; one rolled by hand, undone from the history or waiting for the GM to apply says so."""
    # A character's roll reads in its own system's words (a mixed table's log holds several), the GM's in the page's.
    system_id = roll.character.system if roll.character_id else context.get("system_id", "")
    view = roll_view(context, roll)
    # The character who rolled, else the GM (or whoever rolled outside a character).
    who = roll.character.name if roll.character_id else (roll.roller.username if roll.roller_id else "") or "GM"
    marks: list[str] = []
    if roll.visibility != "public":
        marks.append(format_html(' <span class="badge">{}</span>', roll.get_visibility_display()))
    if roll.by_hand:
        marks.append(' <span class="badge hand" data-hand>rolled by hand</span>')
    if roll.undone:
        marks.append(' <span class="badge undone" data-undone>undone</span>')
    badges = mark_safe("".join(marks))  # noqa: S308 - fixed markup, and the visibility's words escaped
    later = context.get(TIMES_LATER)  # a kept log: what moves with the clock is written when it is served
    when = ""
    if roll.created_at:
        when = _when_mark(roll.created_at) if later else _when(roll.created_at)
    voided = ""
    if roll.voided_at is not None:
        by = roll.voided_by.username if roll.voided_by_id else "someone"
        voided = format_html(' <div class="void-note" data-voided>Voided by {}: {}</div>', by, roll.void_reason)
    fix = _correction_link(roll, view, later=bool(later))
    if roll.visibility == "blind" and view != "gm":
        return format_html(
            '<div class="roll blind{}" data-roll="{}"><span class="roll-main"><strong>{}</strong>: {}{}'
            ' <span class="muted">rolled blind: the GM has the result</span></span>{}{}{}</div>',
            " voided" if voided else "",
            roll.pk,
            who,
            roll.label,
            badges,
            when,
            voided,
            fix,
        )
    dice = "".join(_die_span(die) for die in roll.dice)
    summary = format_html(' <div class="muted">{}</div>', roll.summary) if roll.summary else ""
    return format_html(
        '<div class="roll{}" data-roll="{}" data-outcome="{}"><span class="roll-main"><strong>{}</strong>: {}{}'
        ' <span class="dice">{}</span> → <span class="outcome-{}">{}</span></span>{}{}{}{}</div>',
        " voided" if voided else "",
        roll.pk,
        roll.outcome,
        who,
        roll.label,
        badges,
        mark_safe(dice),  # noqa: S308 - integers, and labels escaped
        slugify(roll.outcome),
        outcome_label(roll.outcome, system_id),
        when,
        summary,
        voided,
        fix,
    )


def roll_view(context, roll) -> str:
    """How this page sees a roll: "gm" (every result, every correction), "roller" (their own), or "peer".

    A pushed line says it outright (``roll_view``); a page reads it from its viewer, seat or user."""
    view = context.get("roll_view")
    if view:
        return view
    viewer, membership = context.get("viewer"), context.get("membership")
    if getattr(viewer, "is_gm", False) and getattr(roll, "campaign_id", None) is not None:
        return "gm"
    if getattr(membership, "is_gm", False):
        return "gm"
    user = context.get("user")
    if user is not None and roll.roller_id is not None and roll.roller_id == getattr(user, "pk", None):
        return "roller"
    return "peer"


def _correction_link(roll, view: str, *, later: bool = False) -> str:
    """The way to void a roll (its GM, or its roller while they still may) or apply a blind roll's change.
    ``later``: the roller's link, which lasts a minute, as a mark ``fill_times`` writes when the line is served."""
    if roll.voided_at is not None or view == "peer" or getattr(roll, "campaign_id", None) is None:
        return ""
    if roll.procedure == "creation":  # a character's making is undone by deleting it, not by a void
        return ""
    url = reverse("characters:roll_fix", args=[roll.pk])
    if view == "gm" and roll.held and not roll.held_applied:
        return format_html(' <a class="roll-fix" href="{}" data-apply>Apply or void…</a>', url)
    if view != "gm" and later:
        return mark_safe(f"<!--fix:{roll.created_at.isoformat()} {url}-->")  # noqa: S308 - a moment, our URL
    if view == "gm" or timezone.now() - roll.created_at < VOID_LINK_FOR:
        return _void_link(url)
    return ""


VOID_LINK_FOR = timedelta(minutes=1)  # the roller's own void (characters.services.corrections.VOID_OWN_WITHIN)
# A log drawn once and kept (characters.region_cache.viewer_log) holds these marks where its lines move with the
# clock: "3 minutes ago", and the roller's Void link that lasts a minute. ``fill_times`` writes them per request.
TIMES_LATER = "roll_times_later"
_TIME_MARK = re.compile(r"<!--(when|fix):(\S+?)(?: (\S+))?-->")


def _void_link(url: str) -> SafeString:
    return format_html(' <a class="roll-fix" href="{}">Void…</a>', url)


def _when(created_at, now=None) -> SafeString:
    moment = template_localtime(created_at)
    # As format_html(…, date_filter(moment, "c"), ago(moment)) wrote it, for less: a log's every line at every
    # serving (issue 39). Both are our words and an ISO time: nothing to escape.
    seconds = ((now or timezone.now()) - moment).total_seconds()
    words = "just now" if seconds < 60 else f"{timesince(moment, now, depth=1)} ago"
    return mark_safe(f' <time class="muted when" datetime="{moment.isoformat()}">{words}</time>')  # noqa: S308


def _when_mark(created_at) -> SafeString:
    return mark_safe(f"<!--when:{created_at.isoformat()}-->")  # noqa: S308 - a moment


def fill_times(html: str) -> str:
    """A kept log as it reads now: each line's time ago and the roller's Void link while it lasts."""
    now = timezone.now()

    def written(match: re.Match) -> str:
        at = datetime.fromisoformat(match[2])
        if match[1] == "when":
            return _when(at, now)
        return _void_link(match[3]) if now - at < VOID_LINK_FOR else ""

    return _TIME_MARK.sub(written, html)


def _die_span(die) -> str:
    """A stored die: sides and face are the server's integers; only a label is free text."""
    kept = die.get("kept")  # as the template read it: a die not marked kept shows as dropped
    sides, face = int(die.get("sides") or 0), int(die.get("face") or 0)
    label = f" ({escape(die['label'])})" if die.get("label") else ""
    if kept:
        return f'<span class="die" title="d{sides}{label}">d{sides}:{face}</span>'
    return f'<span class="die dropped" title="d{sides}{label}, not kept">d{sides}:{face}</span>'
