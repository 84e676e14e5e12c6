"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the GM's table page, the sheet's request card, the API and any later door read their request into these
plain inputs and answer with what comes back.

- **who**: the GM's commands take the campaign's id and ``by``; ``gm_table`` is their permission check (the
  campaign, if ``by`` runs it). Nobody else learns it exists: ``NotHere``, a 404 by every door.
- **inputs**: a plain mapping, name to value (JSON's: a number, a word, true or false, a list of them; a form's
  fields as ``characters.forms.plain_inputs`` gives them), read once here with the page's own form, so its
  sentence is the one every door answers (tests/test_doors.py holds them to it).
- **answer**: the service's ``TableWritten`` (the campaign as written, what changed, the row made).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaigns import services, session, stash
from campaigns.forms import (
    ClockForm,
    CoGmForm,
    DamageForm,
    EncounterForm,
    HandOverForm,
    NoteForm,
    StatusForm,
    fixed_from,
    npc_form,
    picks_from,
    time_form,
)
from campaigns.models import Campaign, ChronicleLine, Membership, PlaySession, RollRequest, RollRequestAnswer
from campaigns.selectors import campaigns_of, campaigns_owned_by, campaigns_run_by, seats_of
from campaigns.services import CampaignError, TableWritten, campaign_move_clock, written
from campaigns.session import hits
from campaigns.session.common import chosen_npc_system
from campaigns.session_view import request_form_for
from campaigns.table import Card, party_cards
from characters.commands import NotHere, editable, read_inputs
from characters.forms import first_error
from characters.models import Character, Item, Roll
from characters.selectors import Seat, character_for
from characters.services import store_free_roll
from core.converters import MAX_ID
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.errors import Refusal
from rules.free import FREE_ROLL

Inputs = Mapping[str, Any]
NOTHING: Inputs = MappingProxyType({})  # a command that reads no inputs takes them all the same (one shape per door)
NO_CAMPAIGN = "No campaign here."
WHO_SEES = "Pick who may see this roll."
ATTACKS_MAX = 50  # NPCs one attack may tick


class FormRefused(CampaignError):
    """A GM's form the command could not do: its sentence, and the form as filled (the page shows it again with
    its errors). ``cards``: the party the form was drawn for, when the form needs them (the roll request's)."""

    def __init__(self, sentence: str, form: Any, cards: Sequence[Card] = ()) -> None:
        super().__init__(sentence)
        self.form = form
        self.cards = tuple(cards)


def gm_table(by: User, campaign_id: int) -> Campaign:
    """The campaign, if ``by`` runs it: the permission check of every GM's command."""
    campaign = campaigns_run_by(by).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotHere(NO_CAMPAIGN)
    return campaign


def owned_table(by: User, campaign_id: int) -> Campaign:
    """The campaign, if ``by`` owns it: who names co-GMs and hands the table over. A co-GM hears a sentence (they
    see the table); anyone else, that there is no campaign here."""
    campaign = gm_table(by, campaign_id)
    if not campaigns_owned_by(by).filter(pk=campaign.pk).exists():
        raise NotTheGm("Only the table's owner names co-GMs or hands the table over.")
    return campaign


def set_co_gm(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"user_id": n, "co_gm": true}: the owner names a member co-GM (false: a player again)."""
    campaign = owned_table(by, campaign_id)
    data = valid_form(CoGmForm(data=_form_data(inputs)))
    return services.campaign_set_co_gm(campaign=campaign, user_id=data["user_id"], co_gm=data["co_gm"], by=by)


def hand_over(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"user_id": n, "stay": "cogm" | "player"}: the owner hands the table to a member and keeps that seat."""
    campaign = owned_table(by, campaign_id)
    data = valid_form(HandOverForm(data=_form_data(inputs)))
    return services.campaign_transfer_gm(
        campaign=campaign, to_user_id=data["user_id"], old_owner_stays=data["stay"], by=by
    )


def _form_data(inputs: Inputs) -> dict[str, str]:
    """JSON's true/false/number as a form's fields (an unticked box: absent)."""
    return {name: _word(inputs, name) for name in inputs if _word(inputs, name) != ""}


def system_of(campaign: Campaign) -> rules_base.GameSystem:
    """The table's rules: a system Lantern no longer plays has no table tools."""
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise NotHere(NO_CAMPAIGN)
    return system


def valid_form(form) -> dict[str, Any]:
    """A form's cleaned data, or its first sentence refused."""
    if not form.is_valid():
        raise CampaignError(first_error(form))
    return form.cleaned_data


def _word(inputs: Inputs, name: str) -> str:
    """One input as a word (a list sent for it: its last)."""
    value = inputs.get(name)
    if isinstance(value, list):
        value = value[-1] if value else None
    if value is None or value is False:
        return ""
    return "on" if value is True else str(value)


def _ticked(inputs: Inputs, name: str) -> bool:
    return _word(inputs, name).lower() in ("on", "true", "1", "yes")


def _visibility(inputs: Inputs) -> str:
    """Who sees a roll the GM makes for an NPC: everyone (the default) or the GM alone."""
    visibility = _word(inputs, "visibility") or "public"
    if visibility not in ("public", "gm"):
        raise CampaignError(WHO_SEES)
    return visibility


# --- the clock, and the party's light -------------------------------------------------------------


def move_clock(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The GM's strip: minutes of game time pass ({"action": "advance", "minutes": n}), or the running fight's
    turn moves to its next step ({"action": "next_turn"})."""
    campaign = gm_table(by, campaign_id)
    form = ClockForm(data=inputs)
    if not form.is_valid():
        raise CampaignError(str(next(iter(form.errors.values()))[0]))
    data = form.cleaned_data
    if data["action"] == "next_turn":
        return session.encounter_next_turn(campaign_id=campaign.pk, by=by)
    return campaign_move_clock(campaign_id=campaign.pk, action=data["action"], minutes=data["minutes"] or 0, by=by)


def advance_time(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"unit": <the system's unit>, "count": n}: the clock moves, lights burn and food is eaten on every sheet."""
    campaign = gm_table(by, campaign_id)
    data = valid_form(time_form(system_of(campaign).time_units(), data=inputs))
    return session.clock_advance(campaign_id=campaign.pk, unit=data["unit"], count=data["count"], by=by)


def set_daylight(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"daylight": "1" or true | "0" or false}: the party in daylight, or in the dark where its own lights shine
    (the table's conditions follow)."""
    campaign = gm_table(by, campaign_id)
    raw = inputs.get("daylight")
    choice = ("1" if raw else "0") if isinstance(raw, bool) else _word(inputs, "daylight")
    if choice not in ("0", "1"):
        raise CampaignError("Say whether the party is in daylight or in the dark.")
    return session.set_daylight(campaign_id=campaign.pk, daylight=choice == "1", by=by)


# --- the fight: its rounds, its NPCs, the PCs' attacks on them ---------------------------------------


def start_encounter(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"name": <optional>}: a fight starts, its first round's order rolled."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    start = EncounterForm(data=inputs)
    name = start.cleaned_data["name"] if start.is_valid() else ""
    return session.encounter_start(campaign_id=campaign.pk, name=name, by=by)


def next_round(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The fight's next round: the order rolled again, the rounds passed on every sheet."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    return session.encounter_next_round(campaign_id=campaign.pk, by=by)


def end_encounter(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The fight is over: its minutes pass; the row says how many and what each player is asked."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    return session.encounter_end(campaign_id=campaign.pk, by=by)


def add_npc(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"system": <at a mixed table, whose stat block: blank for the home system's>, "name", that system's stat
    block, "keep": <also on the saved list>}: into the running fight, or onto the saved list when none runs. A
    system the table does not play is refused with a sentence."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    chosen = _word(inputs, "system").strip()[:40]
    own, system = chosen_npc_system(campaign, chosen)
    form = npc_form(system.npc_fields(), data=inputs, system=(own or campaign.system) if campaign.is_mixed else None)
    if not form.is_valid():
        raise FormRefused(first_error(form), form)
    data = form.cleaned_data
    stats = {p.name: data[p.name] for p in system.npc_fields()}
    fighting = campaign.encounters.filter(active=True).exists()
    keep = data["keep"] or not fighting
    return session.npc_add(
        campaign_id=campaign.pk, name=data["name"], stats=stats, to_encounter=fighting, keep=keep, system=own, by=by
    )


def attack_npcs(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"character": id, "npcs": [ids], "feature", "ranged", "visibility"}: a character's attack on the NPCs the GM
    ticks in the tracker (one, or several as an area attack)."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    character = _word(inputs, "character")
    raw = inputs.get("npcs")
    npcs = [str(n) for n in (raw if isinstance(raw, list) else [] if raw in (None, "") else [raw])]
    if not character.isdigit() or len(character) > 18:
        raise CampaignError("Pick the character who attacks.")
    if not npcs or not all(n.isdigit() and len(n) <= 18 for n in npcs):
        raise CampaignError("Tick the NPCs the character attacks.")
    return session.pc_attack_npcs(
        campaign_id=campaign.pk,
        character_id=int(character),
        npc_ids=[int(n) for n in npcs][:ATTACKS_MAX],
        choices={"feature": _word(inputs, "feature").strip()[:60], "ranged": _ticked(inputs, "ranged")},
        by=by,
        visibility=_visibility(inputs),
    )


def damage_npc(campaign_id: int, npc_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"amount": n, "ignore_armour", "visibility"}: damage typed at the table; the rules say what it does."""
    campaign = gm_table(by, campaign_id)
    data = valid_form(DamageForm(data=inputs))
    return session.npc_damage(
        campaign_id=campaign.pk,
        npc_id=npc_id,
        amount=data["amount"],
        ignore_armour=data["ignore_armour"],
        by=by,
        visibility=_visibility(inputs),
    )


def npc_status(campaign_id: int, npc_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"name": <the status>, "rounds": n}."""
    campaign = gm_table(by, campaign_id)
    data = valid_form(StatusForm(data=inputs))
    return session.npc_status(campaign_id=campaign.pk, npc_id=npc_id, name=data["name"], rounds=data["rounds"], by=by)


def remove_npc(campaign_id: int, npc_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    campaign = gm_table(by, campaign_id)
    return session.npc_remove(campaign_id=campaign.pk, npc_id=npc_id, by=by)


def bring_npc(campaign_id: int, npc_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """A fresh copy of the saved NPC ``npc_id`` joins the running fight."""
    campaign = gm_table(by, campaign_id)
    return session.npc_bring(campaign_id=campaign.pk, saved_id=npc_id, by=by)


def npc_roll(campaign_id: int, npc_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """{"key": <the NPC roll>, "visibility", "target": <a PC at the table, optional>}: rolled as the GM's; an
    attack with a target lands on that PC's sheet."""
    campaign = gm_table(by, campaign_id)
    raw_target = _word(inputs, "target")
    if raw_target and (not raw_target.isdigit() or len(raw_target) > 18):
        raise CampaignError("Pick a character at this table as the target.")
    return session.npc_roll(
        campaign_id=campaign.pk,
        npc_id=npc_id,
        key=_word(inputs, "key"),
        visibility=_visibility(inputs),
        by=by,
        target_id=int(raw_target) if raw_target else None,
    )


def undo_hit(campaign_id: int, hit_id: int, *, inputs: Inputs = NOTHING, by: User) -> TableWritten:
    """Undo one hit of a fight: the GM any at their table, a player one on their own character (the service
    says which). Nobody outside the table learns the campaign is there."""
    if not campaigns_of(by).filter(pk=campaign_id).exists():
        raise NotHere(NO_CAMPAIGN)
    return hits.hit_undo(campaign_id=campaign_id, hit_id=hit_id, by=by)


TableCommand = Callable[..., TableWritten]
# The tracker's buttons by name (the page's and the API's {action} in the address).
ENCOUNTER_COMMANDS: dict[str, TableCommand] = {
    "start": start_encounter,
    "next": next_round,
    "end": end_encounter,
    "add": add_npc,
    "attack": attack_npcs,
}
NPC_COMMANDS: dict[str, TableCommand] = {
    "damage": damage_npc,
    "status": npc_status,
    "remove": remove_npc,
    "bring": bring_npc,
    "roll": npc_roll,
}


# --- roll requests --------------------------------------------------------------------------------


def ask_roll(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The GM asks characters for a roll: {"procedure", "fix-<input>": <what the GM sets>…, "characters": [ids],
    "minutes": n, "blind"}; the row is the request. A refusal carries the form as filled and the party.

    At a mixed table (issue 42) "procedure" and "fix-<input>" are the home system's roll; "check" asks a shared
    check (rules.base.SHARED_CHECKS) each system maps to its own roll, and "procedure@<system>" and
    "fix@<system>@<input>" pick another system's roll and inputs: each character rolls its own system's."""
    campaign = gm_table(by, campaign_id)
    system = system_of(campaign)
    procedure = _word(inputs, "procedure")
    cards = party_cards(campaign)
    ticked = inputs.get("characters")  # one tick is a word, several a list: the form reads a list
    data = {**inputs, "characters": [] if ticked in (None, "") else ticked if isinstance(ticked, list) else [ticked]}
    asked_check = _word(inputs, "check")
    if not procedure and (campaign.is_mixed or asked_check):  # a shared check alone: the home roll is the check's
        data["procedure"] = procedure = _home_roll(system, asked_check)
    form = request_form_for(system, cards, procedure, data=data)
    if form is None:
        raise FormRefused("Nobody at this table can be asked for a roll yet.", None, cards)
    if procedure not in session.requestable(system):
        raise FormRefused(f"{system.name} has no roll a player makes called {procedure!r}.", form, cards)
    _refuse_unknown_rolls(campaign, inputs, form, cards)
    if not form.is_valid():
        raise FormRefused(next(iter(form.errors.values()))[0], form, cards)
    check, procedures, fixed_by_system = picks_from(form)
    fixed = fixed_from(form)
    if not campaign.is_mixed and asked_check in rules_base.SHARED_CHECKS:  # the API's or Discord's check at a
        mapped = system.shared_checks().get(asked_check)  # table of one system: its roll and the inputs it fixes
        if mapped is not None and mapped.procedure == procedure:
            fixed = {**mapped.inputs, **fixed}
    try:
        return session.request_create(
            campaign_id=campaign.pk,
            procedure=procedure,
            fixed=fixed,
            character_ids=[int(c) for c in form.cleaned_data["characters"]],
            minutes=form.cleaned_data["minutes"],
            by=by,
            blind=form.cleaned_data["blind"],
            rule=form.cleaned_data["rule"],
            group_seen=form.cleaned_data["group_seen"] or RollRequest.Seen.PUBLIC,
            check=check,
            procedures=procedures,
            fixed_by_system=fixed_by_system,
        )
    except NotHere:
        raise
    except Refusal as problem:
        raise FormRefused(str(problem), form, cards) from None


def _home_roll(system: rules_base.GameSystem, check: str) -> str:
    """The home system's roll for a shared check asked alone (the API, Discord): the check's, else its first."""
    mapped = system.shared_checks().get(check)
    return mapped.procedure if mapped is not None else next(iter(session.requestable(system)), "")


def _refuse_unknown_rolls(campaign: Campaign, inputs: Inputs, form, cards) -> None:
    """A mixed table's roll named for a system the table does not play, or a roll that system lacks: its sentence
    (a form would only say "not one of the choices")."""
    for name, value in inputs.items():
        if not name.startswith("procedure@"):
            continue
        system_id = name.removeprefix("procedure@")
        other = SYSTEMS.get(system_id)
        if other is None or not campaign.plays(system_id):
            raise FormRefused(f"This table does not play {system_id!r}.", form, cards)
        if str(value) and str(value) not in session.requestable(other):
            raise FormRefused(f"{other.name} has no roll a player makes called {str(value)!r}.", form, cards)
    check = inputs.get("check")
    if check not in (None, "") and check not in rules_base.SHARED_CHECKS:
        words = ", ".join(rules_base.SHARED_CHECKS)
        raise FormRefused(f"Pick a shared check: {words}.", form, cards)


def cancel_request(campaign_id: int, request_id: int, *, inputs: Inputs = NOTHING, by: User) -> TableWritten:
    campaign = gm_table(by, campaign_id)
    return session.request_cancel(request_id=request_id, campaign_id=campaign.pk, by=by)


def answer_request(seat: Seat, *, request_id: int, inputs: Inputs, by: User, hand: str = "") -> TableWritten:
    """Answer the GM's roll request for the seat's character: one roll, the GM's inputs as set. ``inputs``: those
    the GM left to the player (only inputs really sent can disagree with the GM's); ``hand``: the faces of dice
    rolled at the table. ``seat``: the character as its viewer sees it (a player at the table who may not change
    it is told whose it is)."""
    if not seat.viewer.can_edit:
        raise RulesError("That request is for someone else's character: only its player or the GM answers it.")
    character = seat.character
    found = RollRequestAnswer.objects.filter(request_id=request_id, character=character).select_related("request")
    answer = found.first()
    if answer is None:  # nothing there this person may see: as if it never was
        raise NotHere("That request is not for this character.")
    rules = SYSTEMS.get(character.system)
    asked = answer.request.asked_of(character.system)  # its own system's roll, at a mixed table too
    proc = rules.procedures().get(asked.procedure) if rules is not None else None
    if proc is None:
        raise RulesError("That roll no longer exists.")
    sheet = character.checked_sheet()
    given = read_inputs(proc, sheet, inputs, gm=seat.viewer.is_gm)
    given = {k: v for k, v in given.items() if k not in asked.inputs or k in inputs}
    done: dict[str, Any] = {"request_id": request_id, "character_id": character.pk, "params": given, "by": by}
    return session.request_answer(**done, hand=hand.strip()[:400] or None, read=(character.version, sheet))


# --- play sessions and their chronicle (issue 40) -------------------------------------------------------------


class NotTheGm(Refusal):
    """A member of the table asked for what only its GM does (a session started, time run, the stash's loot): 403.
    Someone not at the table is told nothing is there (``NotHere``)."""

    status = 403


def table_seat(user, campaign_id: int) -> Membership:
    """The user's seat at the table; a table they do not sit at is answered as one that does not exist."""
    seat = seats_of(user).filter(campaign_id=campaign_id).first()
    if seat is None:
        raise NotHere("No campaign here.")
    return seat


def start_session(user: User, campaign_id: int, inputs: Inputs = NOTHING) -> PlaySession:
    """One of the table's GMs starts a session: {"present": [character ids], "gm": user id}, both optional (the
    whole roster; the one who starts it). The page's form says "picked" too: its roster's ticks, even none."""
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM starts a session.")
    present = None
    if "present" in inputs or _ticked(inputs, "picked"):
        present = _ids(inputs.get("present"), "Pick who is here from the characters at this table.")
        if not present and Character.objects.filter(campaign_id=campaign_id).exists():
            raise CampaignError("Tick who is here: at least one character.")
    gm = _ids(inputs.get("gm"), "A session is run by one of the table's GMs.")
    return session.session_start(campaign_id=campaign_id, by=user, present=present, gm_id=gm[-1] if gm else None).row


def _ids(value: Any, refusal: str) -> list[int]:
    """An input of ids (one, or a list; JSON's numbers or a form's words), each a row's id, or the refusal."""
    values = value if isinstance(value, list) else [] if value in (None, "") else [value]
    try:
        ids = [int(each) for each in values if not isinstance(each, bool)]
    except (TypeError, ValueError):
        raise CampaignError(refusal) from None
    if len(ids) != len(values) or any(not 1 <= each <= MAX_ID for each in ids):
        raise CampaignError(refusal)
    return ids


def end_session(user: User, campaign_id: int, *, summary: str = "") -> PlaySession:
    """The GM ends the session under way, with a summary."""
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM ends a session.")
    # Game time stops with the session (issue 41): the steps due are applied first, so the session ends at its time.
    session.realtime_pause(campaign_id=campaign_id, by=user, quiet=True)
    return session.session_end(campaign_id=campaign_id, by=user, summary=summary).row


def write_summary(user: User, campaign_id: int, number: int, *, text: str) -> PlaySession:
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM writes a session's summary.")
    return session.session_summary(campaign_id=campaign_id, number=number, text=text, by=user).row


def play_session(user, campaign_id: int, number: int) -> tuple[Membership, PlaySession]:
    """One session of a table the user sits at (else: none here)."""
    seat = table_seat(user, campaign_id)
    found = PlaySession.objects.filter(campaign_id=campaign_id, number=number).select_related("gm").first()
    if found is None:
        raise NotHere("No such session at this table.")
    return seat, found


def add_line(user: User, campaign_id: int, number: int, *, entry: str, text: str) -> ChronicleLine:
    """A member's own line on an entry of a chronicle they may read."""
    seat = table_seat(user, campaign_id)
    return session.line_add(
        campaign_id=campaign_id, number=number, entry=str(entry)[:40], text=text, by=user, is_gm=seat.is_gm
    )


def edit_line(user: User, campaign_id: int, line_id: int, *, text: str) -> ChronicleLine:
    table_seat(user, campaign_id)
    return session.line_edit(campaign_id=campaign_id, line_id=line_id, text=text, by=user)


def remove_line(user: User, campaign_id: int, line_id: int) -> int:
    table_seat(user, campaign_id)
    return session.line_remove(campaign_id=campaign_id, line_id=line_id, by=user)


# --- group checks (issue 40): what only the table's GM does to them, for the page and the API alike -----------------


def _run_by(campaign_id: int, by: User) -> None:
    """Only the table's GM runs a group check; anyone else is answered as if the table were not there."""
    if not campaigns_run_by(by).filter(pk=campaign_id).exists():
        raise NotHere("No campaign here that you run.")


def skip(campaign_id: int, *, request_id: int, character_id: int, by: User) -> TableWritten:
    """The GM leaves an absent player's character out of a group check."""
    _run_by(campaign_id, by)
    return session.request_skip(request_id=request_id, campaign_id=campaign_id, character_id=character_id, by=by)


def close(campaign_id: int, *, request_id: int, by: User) -> TableWritten:
    """The GM closes a group check: its outcome from those who rolled."""
    _run_by(campaign_id, by)
    return session.request_close(request_id=request_id, campaign_id=campaign_id, by=by)


def roll_for(campaign_id: int, *, request_id: int, character_id: int, by: User, hand: str = "") -> TableWritten:
    """The GM rolls a waiting answer on its player's behalf (the roll's line says so), at the GM's inputs and the
    sheet's defaults for the rest."""
    _run_by(campaign_id, by)
    seat = character_for(by, character_id)
    if seat is None or seat.character.campaign_id != campaign_id:
        raise NotHere("That character is not at this table.")
    return answer_request(seat, request_id=request_id, inputs={}, by=by, hand=hand)


def _gm(seat: Membership) -> None:
    if not seat.is_gm:
        raise NotTheGm("Only the GM keeps the table's time and its countdowns.")


def run_realtime(seat: Membership, *, running: bool, by: User, rate: int = 1) -> TableWritten:
    """Start game time running with the wall clock (at ``rate``), or pause it."""
    _gm(seat)
    if running:
        return session.realtime_start(campaign_id=seat.campaign_id, by=by, rate=rate)
    return session.realtime_pause(campaign_id=seat.campaign_id, by=by)


def make_countdown(
    seat: Membership, *, name: str, segments: int, shown: str, every_minutes: int | None, by: User
) -> TableWritten:
    _gm(seat)
    return session.countdown_create(
        campaign_id=seat.campaign_id, name=name, segments=segments, shown=shown, every_minutes=every_minutes, by=by
    )


def tick_countdown(seat: Membership, *, countdown_id: int, by: User, step: int = 1) -> TableWritten:
    _gm(seat)
    return session.countdown_tick(campaign_id=seat.campaign_id, countdown_id=countdown_id, by=by, step=step)


def show_countdown(seat: Membership, *, countdown_id: int, shown: str, by: User) -> TableWritten:
    _gm(seat)
    return session.countdown_show(campaign_id=seat.campaign_id, countdown_id=countdown_id, shown=shown, by=by)


def remove_countdown(seat: Membership, *, countdown_id: int, by: User) -> TableWritten:
    _gm(seat)
    return session.countdown_remove(campaign_id=seat.campaign_id, countdown_id=countdown_id, by=by)


def set_light_time(seat: Membership, *, item_id: int, minutes: int, by: User) -> TableWritten:
    """The GM sets how long a light at the table has left (any character's: the item names it)."""
    _gm(seat)
    item = Item.objects.filter(pk=item_id, character__campaign_id=seat.campaign_id).only("character_id").first()
    if item is None:
        raise NotHere("That light is not at this table.")
    return session.light_set_time(
        campaign_id=seat.campaign_id, character_id=item.character_id, item_id=item_id, minutes=minutes, by=by
    )


# --- the GM's own rolls and notes ---------------------------------------------------------------------------------


def gm_roll(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The GM rolls as the GM, for no character (a luck die, a wandering-monster check): the free roll's inputs,
    "visibility", and "hand" (faces rolled at the table); the row is the roll."""
    campaign = gm_table(by, campaign_id)
    return _table_free_roll(campaign, FREE_ROLL, inputs, by)


def table_roll(campaign_id: int, procedure: str, *, inputs: Inputs, by: User) -> TableWritten:
    """One of the system's rolls for the GM's table, made for no character (an NPC's morale)."""
    campaign = gm_table(by, campaign_id)
    system_of(campaign)
    proc = table_procedure(campaign, procedure)
    if proc is None:
        raise NotHere("This table has no such roll.")
    return _table_free_roll(campaign, proc, inputs, by)


def table_procedure(campaign: Campaign, key: str) -> rules_base.Procedure | None:
    """A GM's table roll by key: the home system's, else (a mixed table) the first other system's that has it, so
    each system's GM tools roll at the table (its block posts the key alone)."""
    for system_key in campaign.systems:
        system = SYSTEMS.get(system_key)
        found = system.table_procedures().get(key) if system is not None else None
        if found is not None:
            return found
    return None


def _table_free_roll(campaign: Campaign, proc: rules_base.Procedure, inputs: Inputs, by: User) -> TableWritten:
    visibility = _word(inputs, "visibility") or Roll.Visibility.PUBLIC
    if visibility not in Roll.Visibility.values:
        raise CampaignError(WHO_SEES)
    params = rules_base.check_params(proc, None, read_inputs(proc, None, inputs, gm=True))
    hand = _word(inputs, "hand").strip()[:400] or None
    roll = store_free_roll(campaign=campaign, params=params, by=by, visibility=visibility, procedure=proc, hand=hand)
    return written(campaign, ("log",), roll)


def save_note(campaign_id: int, character_id: int | None = None, *, inputs: Inputs, by: User) -> TableWritten:
    """The GM's private note ({"text"}): on the campaign, or on one character at the table."""
    campaign = gm_table(by, campaign_id)
    text = valid_form(NoteForm(data=inputs))["text"]
    return session.note_save(campaign_id=campaign.pk, character_id=character_id, text=text, by=by)


def save_summary(campaign_id: int, *, inputs: Inputs, by: User) -> TableWritten:
    """The GM's summary of the story so far ({"text"}), which every member reads."""
    campaign = gm_table(by, campaign_id)
    return session.summary_save(campaign_id=campaign.pk, text=valid_form(NoteForm(data=inputs))["text"], by=by)


def stash_seat(user, campaign_id: int, *, gm: bool = False) -> Membership:
    """The user's seat at the table whose stash this is: a stranger learns nothing (404); ``gm``: the GM's alone."""
    seat = (
        Membership.objects.select_related("campaign").filter(campaign_id=campaign_id, user=user).first()
        if user.is_authenticated
        else None
    )
    if seat is None:
        raise NotHere("No campaign here.")
    if gm and not seat.is_gm:
        raise NotTheGm("Only the GM hands out loot, removes it, splits the coins or reverts the stash's moves.")
    return seat


def _mover(user, campaign_id: int, character_id: int) -> Seat:
    """The character a stash move is for: one this person may change (its owner, the GM), at this table."""
    stash_seat(user, campaign_id)
    seat = editable(user, character_id)
    if seat.character.campaign_id != campaign_id:
        raise NotHere("No character here.")
    return seat


def whole(raw: Any, label: str, *, low: int = 1, high: int = 10**12, blank: int | None = None) -> int | None:
    """A whole number a form or a JSON body sent (blank: ``blank``), or a sentence naming the field."""
    if raw is None or raw == "":
        return blank
    if isinstance(raw, bool):
        raise RulesError(f"{label}: give a whole number.")
    if isinstance(raw, str):
        raw = raw.strip()
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 13:  # "²" is a digit to isdigit, not to int
            raise RulesError(f"{label}: give a whole number between {low} and {high:,}.")
        raw = int(raw)
    if not isinstance(raw, int) or not low <= raw <= high:
        raise RulesError(f"{label}: give a whole number between {low} and {high:,}.")
    return raw


def take_from_stash(
    user: User, campaign_id: int, *, character_id: int, stash_item_id: int, quantity: int | None = None
) -> TableWritten:
    _mover(user, campaign_id, character_id)
    return stash.stash_take(
        campaign_id=campaign_id, character_id=character_id, stash_item_id=stash_item_id, quantity=quantity, by=user
    )


def put_in_stash(
    user: User, campaign_id: int, *, character_id: int, item_id: int, quantity: int | None = None
) -> TableWritten:
    _mover(user, campaign_id, character_id)
    return stash.stash_put(
        campaign_id=campaign_id, character_id=character_id, item_id=item_id, quantity=quantity, by=user
    )


def move_coins(user: User, campaign_id: int, *, character_id: int, amount: int, take: bool) -> TableWritten:
    _mover(user, campaign_id, character_id)
    move = stash.stash_take_coins if take else stash.stash_put_coins
    return move(campaign_id=campaign_id, character_id=character_id, amount=amount, by=user)


def add_loot(
    user: User, campaign_id: int, *, name: str, kind: str, slots: int, quantity: int, coins: int = 0
) -> TableWritten | None:
    """The GM hands out loot: an item (if named), coins (if any), each its own entry of the stash's history."""
    stash_seat(user, campaign_id, gm=True)
    name = str(name or "").strip()
    if not name and not coins:
        raise RulesError("Name the item, or give some coins.")
    if name and kind not in Item.Kind.values:
        raise RulesError("Pick the kind of item.")
    done = None
    with transaction.atomic():  # the item and the coins, or neither
        if name:
            item = rules_base.Item(name=name, kind=kind, slots=slots, quantity=quantity)
            done = stash.stash_add_item(campaign_id=campaign_id, item=item, by=user)
        if coins:
            done = stash.stash_add_coins(campaign_id=campaign_id, amount=coins, by=user)
    return done


def remove_loot(user: User, campaign_id: int, *, stash_item_id: int, quantity: int | None = None) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.stash_remove_item(campaign_id=campaign_id, stash_item_id=stash_item_id, quantity=quantity, by=user)


def split_coins(user: User, campaign_id: int, *, character_ids: list[int], amount: int) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.coins_split(campaign_id=campaign_id, character_ids=character_ids, amount=amount, by=user)


def revert_stash_entry(user: User, campaign_id: int, *, entry_id: int, reason: str) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.stash_entry_revert(campaign_id=campaign_id, entry_id=entry_id, by=user, reason=reason)
