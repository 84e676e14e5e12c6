"""Roll requests: the GM asks the table for a roll, each character answers it once."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from fractions import Fraction
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaigns.models import RollRequest, RollRequestAnswer
from campaigns.services import CampaignError, TableWritten, written
from campaigns.session import group_checks
from campaigns.session.common import lock_campaign, table_system
from characters import locking
from characters.models import Character, Roll
from characters.selectors import characters_editable_by
from characters.services import character_roll, roll_lock_ids
from characters.services.rolls import sheet_as_read
from characters.sheet_view import odds_shown
from live.events import RequestAnswered, RequestAsked, RequestEnded
from live.journal import record
from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules import base as rules_base
from rules.group import any_and_all, group_odds
from rules.odds_conditions import ConditionChip

REQUEST_MINUTES = (1, 240)  # how long a request stays open: a minute to a long scene
OPEN_REQUESTS_MAX = 200  # no table needs more waiting at once; it keeps the table page bounded
RECENT = timedelta(hours=1)  # answers a sheet still shows after they were rolled
FIXABLE_KINDS = ("int", "choice", "bool")  # what the GM may fix; characters and lists stay the player's


def requestable(system: rules_base.GameSystem) -> dict[str, rules_base.Procedure]:
    """The procedures a GM may ask players for: every roll a player makes from their own sheet."""
    return {key: proc for key, proc in system.procedures().items() if not proc.gm_only}


def _shown(params: Sequence[rules_base.Param], fixed: Mapping[str, Any]) -> str:
    words = []
    for param in params:
        if param.name not in fixed:
            continue
        value = fixed[param.name]
        if param.kind == "choice":
            value = dict(param.choices).get(str(value), value)
        elif param.kind == "bool":
            value = "yes" if value else "no"
        words.append(f"{param.label} {value}")
    return ", ".join(words)[:300]


def fixed_inputs(proc: rules_base.Procedure, sheet: rules_base.Sheet, fixed: Mapping[str, Any]) -> dict[str, Any]:
    """The GM's inputs cleaned by the rules for one character's sheet (RulesError naming what is wrong)."""
    params = {p.name: p for p in proc.params(sheet)}
    unknown = sorted(set(fixed) - set(params))
    if unknown:
        raise RulesError(f"{proc.label} has no option {', '.join(unknown)}.")
    loose = sorted(params[name].label for name in fixed if params[name].kind not in FIXABLE_KINDS)
    if loose:
        raise RulesError(f"{', '.join(loose)}: the player chooses that.")
    clean = rules_base.check_params(proc, sheet, fixed)
    return {name: clean[name] for name in fixed}


@dataclass(frozen=True)
class SystemAsk:
    """What a request asks of one system's characters: its roll and the GM's inputs for it (issue 42: at a mixed
    table each system's characters roll their own system's)."""

    system: rules_base.GameSystem
    proc: rules_base.Procedure
    fixed: Mapping[str, Any]


Plan = Mapping[str, SystemAsk]  # by system id


def one_system_plan(system: rules_base.GameSystem, procedure: str, fixed: Mapping[str, Any]) -> dict[str, SystemAsk]:
    """A request of one system's roll (a table of one system; CampaignError if it has no such roll)."""
    proc = requestable(system).get(procedure)
    if proc is None:
        raise CampaignError(f"{system.name} has no roll a player makes called {procedure!r}.")
    return {system.id: SystemAsk(system, proc, {k: v for k, v in fixed.items() if v not in (None, "")})}


def plan_asks(
    systems: Sequence[str],
    *,
    check: str = "",
    procedures: Mapping[str, str] | None = None,
    fixed: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, SystemAsk]:
    """Each of ``systems``' roll: the shared ``check`` as each system maps it (rules.base.SHARED_CHECKS; a system
    that maps none takes the roll picked for it in ``procedures``), else the roll picked per system; ``fixed``: the
    GM's inputs per system, over the check's own. CampaignError naming the system a roll is missing for."""
    procedures, fixed = procedures or {}, fixed or {}
    if check and check not in rules_base.SHARED_CHECKS:
        raise CampaignError(f"Pick a shared check: {', '.join(rules_base.SHARED_CHECKS.values())}.")
    plan: dict[str, SystemAsk] = {}
    for system_id in systems:
        system = SYSTEMS.get(system_id)
        if system is None:
            raise CampaignError(f"{SYSTEM_NAMES.get(system_id, system_id)} cannot be played at a Lantern table yet.")
        mapped = system.shared_checks().get(check) if check else None
        procedure = mapped.procedure if mapped is not None else procedures.get(system_id, "")
        if not procedure:
            if check:
                raise CampaignError(
                    f"{system.name} has no roll for {rules_base.SHARED_CHECKS[check].lower()}: pick its roll yourself."
                )
            raise CampaignError(f"Pick a roll for the {system.name} characters, or a shared check.")
        given = dict(mapped.inputs) if mapped is not None else {}
        given.update(fixed.get(system_id, {}))
        plan.update(one_system_plan(system, procedure, given))
    return plan


def plan_system(plan: Plan, character_systems: Sequence[str]) -> SystemAsk | None:
    """The one system every one of these characters plays (its roll as asked), or None when they play several:
    a system's own group roll needs every PC to share it (issue 42)."""
    found = set(character_systems)
    return plan.get(found.pop()) if len(found) == 1 else None


def ask_words(ask: SystemAsk, sheet: rules_base.Sheet | None, fixed: Mapping[str, Any]) -> str:
    """The GM's inputs of one system's roll in words ("Attribute DEX"), read against one of its sheets."""
    return _shown(ask.proc.params(sheet), fixed) if sheet is not None else ""


@dataclass(frozen=True)
class AskedOdds:
    """One character's exact odds at a roll the GM is about to ask for (``error``: why they have none)."""

    character: Character
    odds: rules_base.Odds | None = None
    error: str = ""
    chips: tuple[ConditionChip, ...] = ()  # the conditions that change these odds (the table's darkness...)
    no_dice: bool = False  # a roll no dice decide: applied as set
    system_id: str = ""  # whose words its outcomes are in (the character's own system)
    asked: str = ""  # the roll asked of it, at a mixed table ("Save (Attribute STR)")


@dataclass(frozen=True)
class PartyOdds:
    """What the GM sees before asking: each character's odds and, when all of them have odds, the party's: the
    group's outcome where the rules make it a group roll (``group``), else at least one / all succeed."""

    rows: tuple[AskedOdds, ...]
    group: rules_base.Odds | None = None
    anyone: Fraction | None = None
    everyone: Fraction | None = None
    rule: str = ""  # a group check's rule (rules.group), and the group's odds under it
    rule_odds: rules_base.Odds | None = None
    system_id: str = ""  # the one system of everyone asked (its words for the group's outcomes); blank: several


def asked_odds(
    system: rules_base.GameSystem,
    procedure: str,
    fixed: Mapping[str, Any],
    asked: Sequence[tuple[Character, rules_base.Sheet | None]],
    rule: str = "",
) -> PartyOdds:
    """Each asked character's exact odds at the roll, the GM's inputs fixed and the rest at the rules' defaults
    (as the roll control of their sheet first shows them), from their checked sheets (``None``: unreadable); and
    the party's. Reads nothing but a character another input names."""
    return plan_odds(one_system_plan(system, procedure, fixed), asked, rule)


def plan_odds(plan: Plan, asked: Sequence[tuple[Character, rules_base.Sheet | None]], rule: str = "") -> PartyOdds:
    """``asked_odds`` at a table of several systems: each character at its own system's roll (``plan``), its odds
    from its own sheet; the party's combine them exactly (rules.group), the system's own group roll only where
    everyone asked plays that system."""
    mixed = len(plan) > 1
    rows = []
    for character, sheet in asked:
        ask = plan.get(character.system)
        if ask is None:
            rows.append(AskedOdds(character, error=f"{character.name}: nothing is asked of their system."))
            continue
        words = f"{ask.proc.label}" + (f" ({ask_words(ask, sheet, ask.fixed)})" if ask.fixed else "") if mixed else ""
        if sheet is None:
            error = f"{character.name}'s sheet holds numbers the rules can't read."
            rows.append(AskedOdds(character, error=error, system_id=character.system, asked=words))
            continue
        try:
            clean = fixed_inputs(ask.proc, sheet, ask.fixed)
        except RulesError as problem:
            rows.append(AskedOdds(character, error=str(problem), system_id=character.system, asked=words))
            continue
        shown = odds_shown(character, ask.proc, sheet, clean)
        rows.append(AskedOdds(character, shown.odds, shown.error, shown.chips, shown.no_dice, character.system, words))
    only = plan_system(plan, [character.system for character, _ in asked])
    one = only.system.id if only is not None else ""
    each = [row.odds for row in rows if row.odds is not None]
    if len(each) != len(rows) or not rows:
        return PartyOdds(tuple(rows), system_id=one)
    if rule:  # a group check: the group's odds under the GM's rule
        odds = group_checks.group_odds_at_ask(only.system if only else None, only.proc.key if only else "", rule, each)
        return PartyOdds(tuple(rows), rule=rule, rule_odds=odds, system_id=one)
    if len(rows) < 2:  # one character's odds are the party's
        return PartyOdds(tuple(rows), system_id=one)
    group = group_odds(only.system, only.proc.key, each) if only is not None else None
    if group is not None:
        return PartyOdds(tuple(rows), group=group, system_id=one)
    anyone, everyone = any_and_all(each)
    return PartyOdds(tuple(rows), anyone=anyone, everyone=everyone, system_id=one)


@transaction.atomic
def request_create(
    *,
    campaign_id: int,
    procedure: str,
    fixed: Mapping[str, Any],
    character_ids: Sequence[int],
    minutes: int,
    by: User,
    blind: bool = False,
    rule: str = "",
    group_seen: str = "public",
    check: str = "",
    procedures: Mapping[str, str] | None = None,
    fixed_by_system: Mapping[str, Mapping[str, Any]] | None = None,
) -> TableWritten:
    """The GM asks these characters for a roll; ``fixed``: the inputs the GM sets (the rest stay open). ``blind``:
    the players roll without seeing the results (Roll.Visibility.BLIND); only the GM sees them. ``rule``: a group
    check's rule (campaigns.session.group_checks; blank: each answers on their own), ``group_seen`` who sees its
    outcome (public, gm, or blind: a blind group check is a blind request). The row is the request.

    At a mixed table (issue 42) ``procedure`` and ``fixed`` are the home system's; ``check`` a shared check each
    system maps to its own roll, ``procedures`` and ``fixed_by_system`` the roll and inputs picked per system:
    each character is asked its own system's (``plan_asks``). Nothing is written unless every one can be asked."""
    campaign = lock_campaign(campaign_id)
    plan: dict[str, SystemAsk] = {}
    if not campaign.is_mixed:  # one system's roll: refused before anything else, as it always was
        plan = one_system_plan(table_system(campaign), procedure, fixed)
        group_checks.clean_rule(next(iter(plan.values())).system, procedure, rule)
        check = ""
    if group_seen not in RollRequest.Seen.values:
        raise CampaignError("Pick who sees the group's outcome: everyone, the GM only, or blind.")
    if not REQUEST_MINUTES[0] <= minutes <= REQUEST_MINUTES[1]:
        raise CampaignError(f"A request stays open {REQUEST_MINUTES[0]} to {REQUEST_MINUTES[1]} minutes.")
    wanted = set(character_ids)
    if not wanted:
        raise CampaignError("Pick at least one character to ask.")
    characters = list(Character.objects.filter(campaign=campaign, pk__in=wanted).select_related("campaign"))
    if len(characters) != len(wanted):
        raise CampaignError("Only characters at this table can be asked for a roll.")
    if campaign.is_mixed:
        systems = sorted({c.system for c in characters}, key=lambda s: campaign.systems.index(s))
        picked = {campaign.system: procedure, **(procedures or {})}
        given = {campaign.system: fixed, **(fixed_by_system or {})}
        plan = plan_asks(systems, check=check, procedures=picked, fixed=given)
    only = plan_system(plan, [c.system for c in characters])
    rule = group_checks.clean_rule(only.system if only else None, only.proc.key if only else "", rule)
    if blind and rule:
        group_seen = RollRequest.Seen.BLIND
    blind = blind or group_seen == RollRequest.Seen.BLIND
    now = timezone.now()
    if campaign.roll_requests.filter(status=RollRequest.Status.OPEN, expires_at__gt=now).count() >= OPEN_REQUESTS_MAX:
        raise CampaignError(f"{OPEN_REQUESTS_MAX} requests are waiting already: cancel some first.")
    asked: dict[str, dict[str, Any]] = {}  # by system: the roll as asked, its inputs cleaned against a sheet
    sheets = []
    for character in characters:
        ask = plan[character.system]
        try:
            sheet = character.checked_sheet()
            clean = fixed_inputs(ask.proc, sheet, ask.fixed)
        except RulesError as problem:
            raise CampaignError(f"{character.name}: {problem}") from None
        sheets.append((character, sheet))
        asked.setdefault(
            character.system,
            {
                "procedure": ask.proc.key,
                "inputs": clean,
                "label": ask.proc.label[:200],
                "shown": _shown(ask.proc.params(sheet), clean),
            },
        )
    group = None
    if rule:  # the group's exact odds as the GM saw them before asking, each at their sheet's defaults
        each = [row.odds for row in plan_odds(plan, sheets).rows]
        if all(odds is not None for odds in each):
            system, key = (only.system, only.proc.key) if only else (None, "")
            group = group_checks.group_odds_at_ask(system, key, rule, [o for o in each if o is not None])
    first = asked.get(campaign.system) or next(iter(asked.values()))  # the home system's roll, where it is asked
    label = first["label"]
    if check:  # "Check with strength or might": each system's own roll is on its characters' answers
        label = f"Check with {rules_base.SHARED_CHECKS[check].lower()}"
    elif len(asked) > 1:
        label = " / ".join(dict.fromkeys(a["label"] for a in asked.values()))
    request = RollRequest.objects.create(
        campaign=campaign,
        procedure=first["procedure"],
        label=label[:200],
        inputs=first["inputs"],
        shown=first["shown"] if len(asked) == 1 else "",
        per_system=asked if len(asked) > 1 or campaign.is_mixed else {},
        shared_check=check,
        created_by=by,
        expires_at=now + timedelta(minutes=minutes),
        blind=blind,
        rule=rule,
        group_seen=group_seen if rule else RollRequest.Seen.PUBLIC,
        group_odds=group_checks.odds_as_rows(group),
    )
    RollRequestAnswer.objects.bulk_create(RollRequestAnswer(request=request, character=c) for c in characters)
    return written(
        campaign, _announce_request(campaign.pk, RequestAsked, request.pk, [c.pk for c in characters], by), request
    )


def _announce_request(
    campaign_id: int,
    kind: type[RequestAsked | RequestAnswered | RequestEnded],
    request_id: int,
    character_ids: Sequence[int],
    by: User | None = None,
) -> list[str]:
    """The GM's panel and each named character's sheet show the request as it now stands (campaigns/push.py)."""
    record(campaign_id, kind(request=request_id, characters=tuple(character_ids)), by=by)
    return ["requests", *(f"character-{character_id}-requests" for character_id in character_ids)]


@transaction.atomic
def request_answer(
    *,
    request_id: int,
    character_id: int,
    params: Mapping[str, Any],
    by: User,
    rng=None,
    hand: str | None = None,
    read: tuple[int, rules_base.Sheet] | None = None,
) -> TableWritten:
    """A player answers a request for one of their characters: the normal roll, the GM's inputs forced. ``hand``:
    the faces of dice rolled at the table, where the table allows them (character_roll checks it); a blind request
    is answered with a blind roll. The row is the answer; the regions, the request's (the roll announces its own).

    Locked in the app's one order (characters.locking): the roller, the characters the roll locks, then the
    answer (locking the answer first deadlocked with the character's deletion, which deletes its answers).

    ``read``: the version and the checked sheet the caller read the inputs against (character_roll's)."""
    if not characters_editable_by(by).filter(pk=character_id).exists():
        raise RulesError("That request is for someone else's character: only its player or the GM answers it.")
    locking.lock_roller(by)
    known = RollRequest.objects.filter(answers__character_id=character_id, pk=request_id)
    found = known.values_list("procedure", "inputs", "per_system", "answers__character__system").first()
    if found is not None:  # the roll asked of this character's own system (a mixed table's, issue 42)
        of_system = RollRequest(procedure=found[0], inputs=found[1], per_system=found[2]).asked_of(found[3])
        with contextlib.suppress(RulesError):  # a roll the system no longer has: refused below, in its words
            locking.lock_characters(roll_lock_ids(character_id, of_system.procedure, {**params, **of_system.inputs}))
    answer = (
        RollRequestAnswer.objects.select_for_update()
        .select_related("request", "request__campaign")
        .filter(request_id=request_id, character_id=character_id)
        .first()
    )
    if answer is None:
        raise RulesError("That request is not for this character.")
    request = answer.request
    if answer.answered_at is not None:
        raise RulesError("This character has answered that request already.")
    if request.status == RollRequest.Status.CANCELLED:
        raise RulesError("The GM cancelled that request.")
    if not request.is_open(timezone.now()):
        raise RulesError("That request has expired: ask the GM for a new one.")
    character = locking.lock_character(character_id)  # held already: it waits for nothing
    system = SYSTEMS.get(character.system)  # the character's own system rolls it, at a mixed table too
    asked = request.asked_of(character.system)
    proc = system.procedures().get(asked.procedure) if system is not None else None
    if system is None or proc is None:
        raise RulesError(f"{system.name if system else character.system} no longer has that roll.")
    sheet = sheet_as_read(read, character) or character.checked_sheet()
    given = {k: v for k, v in params.items() if k in asked.inputs}
    if given:
        clean = rules_base.check_params(proc, sheet, given)
        changed = [p.label for p in proc.params(sheet) if p.name in given and clean[p.name] != asked.inputs[p.name]]
        if changed:
            raise RulesError(f"The GM set {', '.join(changed)} for this roll; it cannot be changed.")
    if answer.skipped:
        raise RulesError("The GM left this character out of that group check.")
    for_player = character.owner_id != by.pk  # only its GM answers another's character (checked above)
    made: list[rules_base.RollResult] = []

    def marked(result: rules_base.RollResult) -> rules_base.RollResult:
        """A roll the GM made on a player's behalf says so in its line."""
        return replace(result, summary=f"{result.summary} Rolled by the GM for {character.name}'s player.")

    roll = character_roll(
        character_id=character_id,
        procedure=proc.key,
        params={**params, **asked.inputs},
        by=by,
        rng=rng,
        hand=hand,
        visibility=str(Roll.Visibility.BLIND if request.blind else Roll.Visibility.PUBLIC),
        requested_blind=request.blind,
        read=(character.version, sheet),  # checked just now, under the lock
        shape=marked if for_player else None,
        on_result=made.append,
    ).row
    answer.roll = roll
    answer.outcome = roll.outcome[:60]
    answer.answered_at = timezone.now()
    odds = made[-1].odds if made else None
    answer.succeeded = roll.outcome in odds.success_keys if odds is not None else roll.outcome == "pass"
    answer.for_player = for_player
    answer.save(update_fields=["roll", "outcome", "answered_at", "succeeded", "for_player"])
    if request.rule:
        regions = _announce_request(request.campaign_id, RequestAnswered, request.pk, [character_id], by)
        regions += group_checks.decide_if_done(request.pk, by)  # the last answer decides the group's outcome
        return written(request.campaign, regions, answer)
    outcomes = list(request.answers.values_list("outcome", "answered_at", "character__system"))
    if all(at is not None for _, at, _ in outcomes) and {s for _, _, s in outcomes} == {character.system}:
        # A group result is the system's own: only where everyone asked plays it (issue 42).
        group = system.group_result(asked.procedure, [outcome for outcome, _, _ in outcomes])
        if group is not None:
            request.group_outcome = group.outcome[:60]
            request.group_summary = group.summary[:300]
            request.save(update_fields=["group_outcome", "group_summary"])
    return written(
        request.campaign,
        _announce_request(request.campaign_id, RequestAnswered, request.pk, [character_id], by),
        answer,
    )


@transaction.atomic
def request_cancel(*, request_id: int, campaign_id: int, by: User | None = None) -> TableWritten:
    # The request's row alone is locked, as ever; its campaign comes along in the same query for the answer.
    rows = RollRequest.objects.select_for_update(of=("self",)).select_related("campaign")
    request = rows.filter(pk=request_id, campaign_id=campaign_id).first()
    if request is None:
        raise CampaignError("That request is not at this table.")
    if request.status == RollRequest.Status.CANCELLED:
        raise CampaignError("That request was cancelled already.")
    if all(a.answered_at is not None for a in request.answers.all()):
        raise CampaignError("Everyone has answered that request: there is nothing left to cancel.")
    request.status = RollRequest.Status.CANCELLED
    request.save(update_fields=["status"])
    answered = list(request.answers.values_list("character_id", flat=True))
    return written(request.campaign, _announce_request(campaign_id, RequestEnded, request.pk, answered, by), request)
