"""One interaction from Discord, answered (Discord's interaction response types): a PING with a PONG, a slash
command with a message (4, ephemeral with flag 64 when it is the caller's alone), a button with the message it
updates (7), an autocomplete with its choices (8).

Every command is a call of the command layer every door uses (characters.commands, campaigns.commands): the same
permission checks, refusals and roll cap as the sheet's page and the API. Nothing private is posted in a channel:
a public roll is the only result a channel sees; a GM-only or private roll answers its roller alone (the GM reads it
on Lantern), a blind one tells its roller only that it was rolled."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import QuerySet

from campaigns import commands as table_commands
from campaigns.models import Campaign, RollRequest, RollRequestAnswer
from campaigns.session.requests import requestable
from characters import commands, services
from characters.models import Character, Roll
from characters.selectors import Seat, characters_editable_by
from characters.sheet_view import sheet_view
from characters.transfer import roll_as_json
from discord import linking
from discord.models import ChannelLink, UserLink
from rules import SYSTEMS
from rules import base as rules_base
from rules.errors import Refusal, Settled
from webhooks.payloads import unmarked as plain

# Discord's interaction types and its answers to them (its docs: interactions/receiving-and-responding)
PING, COMMAND, COMPONENT, AUTOCOMPLETE = 1, 2, 3, 4
PONG, MESSAGE, UPDATE_MESSAGE, CHOICES = 1, 4, 7, 8
EPHEMERAL = 64
CHOICES_MAX = 25  # Discord shows at most 25 autocomplete choices
BUTTON, ACTION_ROW, PRIMARY = 2, 1, 1
REQUEST_BUTTON = "request:"  # a request's button: custom_id "request:<id>"
NOT_LINKED = "Link your Discord user to Lantern first: make a code on Lantern's Discord page, then /lantern link CODE."
NO_CAMPAIGN = (
    "This channel plays no campaign: its GM makes a code on the campaign's Discord page, then /lantern channel CODE."
)


class NotUnderstood(Refusal):
    """An interaction Lantern has no answer for (a type or a command it doesn't know): a 400."""

    status = 400


@dataclass(frozen=True)
class Caller:
    """Who sent the interaction, where, and what that Discord user and channel are linked to."""

    discord_id: str
    discord_name: str
    channel_id: str
    guild_id: str
    link: UserLink | None
    channel: ChannelLink | None

    @property
    def user(self) -> User:
        if self.link is None:
            raise Refusal(NOT_LINKED)
        return self.link.user

    @property
    def campaign(self) -> Campaign:
        if self.channel is None:
            raise Refusal(NO_CAMPAIGN)
        return self.channel.campaign


def caller_of(interaction: Mapping[str, Any]) -> Caller:
    member = interaction.get("member") or {}
    person = member.get("user") or interaction.get("user") or {}
    discord_id = str(person.get("id") or "")
    if not discord_id.isdigit():
        raise NotUnderstood("An interaction from nobody.")
    name = str(person.get("global_name") or person.get("username") or "")
    channel_id = str(interaction.get("channel_id") or (interaction.get("channel") or {}).get("id") or "")
    link = UserLink.objects.select_related("user").filter(discord_id=discord_id, user__is_active=True).first()
    channels = ChannelLink.objects.select_related("campaign")
    channel = channels.filter(channel_id=channel_id).first() if channel_id else None
    return Caller(discord_id, name, channel_id, str(interaction.get("guild_id") or ""), link, channel)


def message(content: str, *, private: bool = True, components: list | None = None, kind: int = MESSAGE) -> dict:
    """A message answer: ``private`` shows it to the caller alone (flag 64); mentions never ping anyone."""
    data: dict[str, Any] = {"content": content[:2000], "allowed_mentions": {"parse": []}}
    if private:
        data["flags"] = EPHEMERAL
    if components is not None:
        data["components"] = components
    return {"type": kind, "data": data}


def answer(interaction: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to one verified interaction."""
    kind = interaction.get("type")
    if kind == PING:
        return {"type": PONG}
    if kind not in (COMMAND, COMPONENT, AUTOCOMPLETE):
        raise NotUnderstood(f"Lantern has no answer for an interaction of type {kind!r}.")
    data = interaction.get("data") or {}
    caller = caller_of(interaction)
    if kind == AUTOCOMPLETE:
        try:
            return {"type": CHOICES, "data": {"choices": suggestions(caller, data)[:CHOICES_MAX]}}
        except Refusal:
            return {"type": CHOICES, "data": {"choices": []}}
    try:
        limited = _over_limit(caller)
        if limited:
            return message(limited)
        if kind == COMPONENT:
            return pressed(caller, str(data.get("custom_id") or ""))
        return command(caller, str(data.get("name") or ""), data.get("options") or [])
    except NotUnderstood:
        raise
    except Refusal as refusal:
        return message(str(refusal))


def _over_limit(caller: Caller) -> str:
    """The sentence for a caller over their minute's commands, or their channel over its own; "" otherwise."""
    if caller.link is not None and not linking.user_calls_left(caller.link):
        return f"That is {settings.DISCORD_CALLS_PER_MINUTE} commands in a minute from you: wait a moment."
    if caller.channel is not None and not linking.channel_calls_left(caller.channel):
        limit = settings.DISCORD_CHANNEL_CALLS_PER_MINUTE
        return f"That is {limit} commands in a minute in this channel: wait a moment."
    return ""


def options_of(options: list) -> dict[str, Any]:
    """The options as name → value (a subcommand's under its name)."""
    out: dict[str, Any] = {}
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        if "options" in option and "value" not in option:
            out[str(option.get("name"))] = options_of(option["options"])
        else:
            out[str(option.get("name"))] = option.get("value")
    return out


def parse_inputs(text: Any) -> dict[str, Any]:
    """A roll's inputs as typed after the procedure: ``ability=BOD advantage=1 careful`` (a bare word ticks a box;
    ``a,b`` picks several choices). The command layer refuses a name the roll doesn't have."""
    given: dict[str, Any] = {}
    for word in str(text or "").split()[:40]:
        name, equals, value = word.partition("=")
        if not equals:
            given[name] = True
        elif "," in value:
            given[name] = [part for part in value.split(",") if part]
        else:
            given[name] = value
    return given


# --- commands ---------------------------------------------------------------------------------------------------


def command(caller: Caller, name: str, options: list) -> dict[str, Any]:
    given = options_of(options)
    if name == "lantern":
        return lantern(caller, given)
    handler = {"odds": odds, "roll": roll, "sheet": sheet, "request": request}.get(name)
    if handler is None:
        raise NotUnderstood(f"Lantern has no command called {name!r}.")
    return handler(caller, given)


def lantern(caller: Caller, given: dict[str, Any]) -> dict[str, Any]:
    """``/lantern link|unlink|channel|unchannel``: linking from Discord's side."""
    sub, inner = next(iter(given.items()), ("", {}))
    inner = inner if isinstance(inner, dict) else {}
    if sub == "link":
        link = linking.link_user(
            code=str(inner.get("code") or ""), discord_id=caller.discord_id, discord_name=caller.discord_name
        )
        return message(f"Linked: you play as {plain(link.user.username)} on Lantern.")
    if sub == "unlink":
        if caller.link is None or not linking.unlink_user(user=caller.link.user):
            return message("Your Discord user is linked to no Lantern account.")
        return message("Unlinked: Lantern no longer knows your Discord user.")
    if sub == "channel":
        if not caller.channel_id:
            raise Refusal("Type it in the channel the campaign plays in.")
        code, by = str(inner.get("code") or ""), _linked(caller)
        channel = linking.link_channel(code=code, channel_id=caller.channel_id, guild_id=caller.guild_id, by=by)
        return message(f"This channel now plays {plain(channel.campaign.name)}.", private=False)
    if sub == "unchannel":
        gone = linking.unlink_channel(user=caller.user, channel_id=caller.channel_id)
        return message(f"This channel no longer plays {plain(gone.campaign.name)}.", private=False)
    raise NotUnderstood(f"/lantern has no subcommand {sub!r}.")


def _linked(caller: Caller) -> UserLink:
    if caller.link is None:
        raise Refusal(NOT_LINKED)
    return caller.link


def candidates(caller: Caller) -> QuerySet[Character]:
    """The characters at the channel's table the caller may roll for: their own; the GM's, all of them."""
    return characters_editable_by(caller.user).filter(campaign_id=caller.campaign.pk).order_by("name", "pk")


def seat_for(caller: Caller, named: Any) -> Seat:
    """The character a command is for: the one named (by id, as autocomplete gives it, or by name), else the
    caller's own at the channel's table, if they have exactly one (else they are asked to say which)."""
    rows = candidates(caller)
    if named not in (None, ""):
        text = str(named).strip()
        found = rows.filter(pk=int(text)) if text.isdigit() and len(text) < 19 else rows.filter(name__iexact=text)
        character = found.first()
        if character is None:
            raise commands.NotHere("No character of yours here by that name.")
        return commands.editable(caller.user, character.pk)
    own = list(rows.filter(owner=caller.user)[:10])
    if not own:
        raise Refusal(f"You have no character at {plain(caller.campaign.name)}: name one with the character option.")
    if len(own) > 1:
        names = ", ".join(plain(c.name) for c in own)
        where = plain(caller.campaign.name)
        raise Refusal(f"You have {len(own)} characters at {where} ({names}): say which with the character option.")
    return commands.editable(caller.user, own[0].pk)


def odds_words(odds: Mapping[str, str] | rules_base.Odds | None) -> str:
    """``pass 5/8 (63%) · fail 3/8 (38%)``: each outcome's exact odds, as a fraction and rounded."""
    if odds is None:
        return "no dice decide it"
    pairs = services.odds_as_json(odds).items() if isinstance(odds, rules_base.Odds) else odds.items()
    words = []
    for key, fraction in pairs:
        top, _, bottom = str(fraction).partition("/")
        percent = f" ({_percent(int(top), int(bottom))})" if top.isdigit() and bottom.isdigit() and int(bottom) else ""
        words.append(f"{plain(key)} {fraction}{percent}")
    return " · ".join(words)


def _percent(top: int, bottom: int) -> str:
    """As the sheet's odds box: one decimal where it needs one (62.5%, 50%)."""
    return f"{round(100 * top / bottom, 1):g}%"


def odds(caller: Caller, given: dict[str, Any]) -> dict[str, Any]:
    """``/odds procedure [inputs] [character]``: the exact odds from the sheet, to the caller alone."""
    seat = seat_for(caller, given.get("character"))
    proc = commands.procedure_of(seat, str(given.get("procedure") or ""))
    sheet = seat.character.checked_sheet()
    params = commands.read_inputs(proc, sheet, parse_inputs(given.get("inputs")), gm=seat.viewer.is_gm)
    head = f"**{plain(seat.character.name)}**: {plain(proc.label)}"
    try:
        found = services.character_odds(seat.character, proc.key, params, sheet=sheet)
    except Settled as settled:
        return message(f"{head}: {plain(settled)}")
    return message(f"{head}\nOdds: {odds_words(found)}")


def roll(caller: Caller, given: dict[str, Any]) -> dict[str, Any]:
    """``/roll procedure [inputs] [visibility] [character]``: rolled on the server through the sheet's own command;
    the odds first, then the result, shown as the roller's log shows it."""
    seat = seat_for(caller, given.get("character"))
    visibility = str(given.get("visibility") or Roll.Visibility.PUBLIC)
    done = commands.roll(
        seat,
        procedure=str(given.get("procedure") or ""),
        inputs=parse_inputs(given.get("inputs")),
        by=caller.user,
        visibility=visibility,
    )
    row: Roll = done.row
    return message(roll_words(row, gm=seat.viewer.is_gm), private=row.visibility != Roll.Visibility.PUBLIC)


def roll_words(row: Roll, *, gm: bool) -> str:
    shown = roll_as_json(row, gm=gm, with_odds=True)
    who = plain(row.character.name if row.character is not None else "")
    head = f"**{who}** rolls {plain(row.label)}"
    if "result" in shown:  # a blind roll seen by its roller
        return f"{head}: rolled blind. The GM has the result on Lantern."
    audience = {
        Roll.Visibility.GM: " (GM only: the GM reads it on Lantern)",
        Roll.Visibility.PRIVATE: " (only you)",
        Roll.Visibility.BLIND: " (blind)",
    }.get(Roll.Visibility(row.visibility), "")
    result = f"**{plain(row.outcome)}**" + (f": {plain(row.summary)}" if row.summary else "")
    return f"{head}{audience}\nOdds: {odds_words(shown.get('odds') or None)}\nResult: {result}"


def sheet(caller: Caller, given: dict[str, Any]) -> dict[str, Any]:
    """``/sheet [character]``: the vitals, as the sheet's vitals region shows them to the caller."""
    seat = seat_for(caller, given.get("character"))
    view = sheet_view(caller.user, seat, regions=("vitals",), controls=False, personal=False)
    lines = [f"**{plain(seat.character.name)}**"]
    lines += [f"{plain(track.label)}: {plain(track.shown)}" for track in view.tracks]
    if view.conditions:
        lines.append("Conditions: " + ", ".join(plain(c) for c in view.conditions))
    if view.sheet_problem:
        lines.append(plain(view.sheet_problem))
    return message("\n".join(lines))


def request(caller: Caller, given: dict[str, Any]) -> dict[str, Any]:
    """``/request procedure [inputs] [blind] [minutes]``: the GM asks the linked table's characters for a roll; the
    channel gets the request with a button each player presses to roll."""
    minutes = given.get("minutes") or 10
    # At a mixed table another system's roll and inputs are named as the table's form names them
    # ("procedure@<system>", "fix@<system>@<input>"); the rest are the home system's roll's inputs.
    fixed = {
        (k if k.startswith(("procedure@", "fix@")) else f"fix-{k}"): rules_base.CHECKBOX_ON if v is True else v
        for k, v in parse_inputs(given.get("inputs")).items()
    }
    party = Character.objects.filter(campaign_id=caller.campaign.pk).values_list("pk", flat=True)
    inputs: dict[str, Any] = {
        **fixed,
        "check": str(given.get("check") or ""),
        "procedure": str(given.get("procedure") or ""),
        "characters": [str(pk) for pk in party],
        "minutes": int(minutes) if isinstance(minutes, int) else 0,
    }
    if given.get("blind"):
        inputs["blind"] = "on"
    asked = table_commands.ask_roll(caller.campaign.pk, inputs=inputs, by=caller.user)
    return request_message(asked.row, kind=MESSAGE)


def request_message(row: RollRequest, *, kind: int) -> dict[str, Any]:
    """The request as the channel sees it: who is asked, who rolled (a blind request's outcomes never), a button."""
    answers = list(RollRequestAnswer.objects.filter(request=row).select_related("character", "roll"))
    what = plain(row.label) + (f" ({plain(row.shown)})" if row.shown else "")
    lines = [f"The GM asks for {what}" + (", rolled blind: only the GM sees the results." if row.blind else ".")]
    for each in answers:
        name = plain(each.character.name)
        if row.per_system:  # a mixed table: the roll each one's own system answers with
            asked = row.asked_of(each.character.system)
            name += f" ({plain(asked.label)}" + (f": {plain(asked.shown)})" if asked.shown else ")")
        if each.answered_at is None:
            lines.append(f"· {name}: not rolled yet")
        elif row.blind or each.roll is None or each.roll.visibility != Roll.Visibility.PUBLIC:
            lines.append(f"✓ {name}: rolled")
        else:
            lines.append(f"✓ {name}: **{plain(each.outcome)}** (odds {odds_words(each.roll.odds or None)})")
    done = sum(1 for each in answers if each.answered_at is not None)
    lines.append(f"{done} of {len(answers)} rolled.")
    button = {"type": BUTTON, "style": PRIMARY, "label": "Roll", "custom_id": f"{REQUEST_BUTTON}{row.pk}"}
    components = [{"type": ACTION_ROW, "components": [button]}] if done < len(answers) else []
    return message("\n".join(lines), private=False, components=components, kind=kind)


def pressed(caller: Caller, custom_id: str) -> dict[str, Any]:
    """A button: the request's Roll button answers it for the presser's character (the message is updated)."""
    if not custom_id.startswith(REQUEST_BUTTON) or not custom_id.removeprefix(REQUEST_BUTTON).isdigit():
        raise NotUnderstood("Lantern has no such button.")
    request_id = int(custom_id.removeprefix(REQUEST_BUTTON)[:18])
    row = RollRequest.objects.filter(pk=request_id, campaign_id=caller.campaign.pk).first()
    if row is None:
        raise Refusal("That request is gone.")
    mine = RollRequestAnswer.objects.filter(
        request=row, answered_at__isnull=True, character__owner=caller.user
    ).values_list("character_id", flat=True)
    waiting = list(mine[:1])
    if not waiting:
        raise Refusal("That request waits for no character of yours.")
    seat = commands.editable(caller.user, waiting[0])
    table_commands.answer_request(seat, request_id=row.pk, inputs={}, by=caller.user)
    return request_message(row, kind=UPDATE_MESSAGE)


# --- autocomplete -----------------------------------------------------------------------------------------------


def suggestions(caller: Caller, data: Mapping[str, Any]) -> list[dict[str, str]]:
    """The choices for the option being typed: a procedure of the character's system (through the rules registry),
    or one of the caller's characters at the table."""
    given = options_of(data.get("options") or [])
    focused = _focused(data.get("options") or [])
    typed = str(given.get(focused) or "").lower()
    if focused == "character":
        rows = candidates(caller)
        return [{"name": c.name[:100], "value": str(c.pk)} for c in rows[:CHOICES_MAX] if typed in c.name.lower()]
    if focused != "procedure":
        return []
    procedures: Mapping[str, rules_base.Procedure]
    if data.get("name") == "request":
        system = SYSTEMS.get(caller.campaign.system)
        procedures = requestable(system) if system is not None else {}
        gm = True
    else:
        seat = seat_for(caller, given.get("character"))
        system = SYSTEMS.get(seat.character.system)
        procedures = system.procedures() if system is not None else {}
        gm = seat.viewer.is_gm
    return [
        {"name": proc.label[:100], "value": key}
        for key, proc in procedures.items()
        if (gm or not proc.gm_only) and (typed in key.lower() or typed in proc.label.lower())
    ]


def _focused(options: list) -> str:
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict):
            if option.get("focused"):
                return str(option.get("name"))
            inner = _focused(option.get("options") or [])
            if inner:
                return inner
    return ""
