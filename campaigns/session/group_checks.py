"""Group checks (issue 40): a roll request the GM asks of several characters under a group rule, decided as one line.

The GM picks the rule when asking (the system's own group roll where it has one, else all succeed / at least one /
at least half / the best result stands: rules/group.py), and who sees the outcome (everyone, the GM, or blind). The
answers come in as any request's; the GM may roll on a player's behalf (``request_answer`` marks it), leave an
absent player out (``request_skip``) or close the check (``request_close``). Once nobody is left to roll, the
group's outcome is worked out from the rolled results and logged as one table roll naming each character's result,
with the group's exact odds as they were shown when asked, and a ``GroupChecked`` event as the GM chose.

Locks: an answer's row, then its request's (``characters.locking``, step 4: a request's rows after its campaign).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaigns.models import RollRequest, RollRequestAnswer
from campaigns.services import CampaignError, TableWritten, written
from characters.services import store_roll
from live.events import GroupChecked, RequestAnswered, RequestEnded, Seen, gm_only
from live.journal import record
from rules import SYSTEMS
from rules import base as rules_base
from rules.group import PLAIN_RULES, SYSTEM_RULE, check_odds, has_group_roll, plain_result

GROUP_PROCEDURE = "group_check"  # the group line's procedure in the roll log


def group_rules(system: rules_base.GameSystem | None, procedure: str) -> list[tuple[str, str]]:
    """The rules the GM may pick for this roll asked of several characters: the system's own first, where its
    rules make the roll a group roll, then the plain ones. ``system`` None: characters of several systems are
    asked (issue 42), and only the plain rules, read from each one's own chance, combine them."""
    rules = [(key, label) for key, label in PLAIN_RULES.items()]
    if system is not None and has_group_roll(system, procedure):
        rules.insert(0, (SYSTEM_RULE, f"{system.name}'s own group roll"))
    return rules


def rule_words(system: rules_base.GameSystem | None, rule: str) -> str:
    if rule == SYSTEM_RULE:
        return f"{system.name}'s own group roll" if system is not None else "the system's own group roll"
    return PLAIN_RULES.get(rule, "")


def clean_rule(system: rules_base.GameSystem | None, procedure: str, rule: str) -> str:
    """The rule as asked, checked against what this roll offers (CampaignError naming the choices)."""
    if not rule:
        return ""
    offered = dict(group_rules(system, procedure))
    if rule not in offered:
        raise CampaignError(f"Pick a group rule: {', '.join(offered.values())}.")
    return rule


def odds_as_rows(odds: rules_base.Odds | None) -> list[list[str]]:
    """Odds as the request keeps them: [[key, "n/d"], ...] in their order (jsonb keeps no key order)."""
    if odds is None:
        return []
    return [[key, f"{p.numerator}/{p.denominator}"] for key, p in odds.outcomes]


def odds_from_rows(rows: Any) -> rules_base.Odds | None:
    """The odds kept on a request read back (None for none, or a row damaged)."""
    try:
        return rules_base.Odds(tuple((str(k), Fraction(v)) for k, v in rows)) if rows else None
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def group_odds_at_ask(
    system: rules_base.GameSystem | None, procedure: str, rule: str, each: list[rules_base.Odds]
) -> rules_base.Odds | None:
    return check_odds(rule, each, system, procedure) if rule else None


def _decide(request: RollRequest, by: User | None) -> list[str]:
    """The group's outcome, once nobody is left to roll (or the GM closed it): its line in the log and its event.
    Called with the request's row locked; decides once. The topics it announced. Each character's outcome is in
    its own system's words (a mixed table, issue 42); the system's own group rule is read only where everyone
    asked plays that system."""
    if not request.rule or request.group_roll_id is not None:
        return []
    answers = list(request.answers.select_related("character").order_by("character__name", "pk"))
    waiting = [a for a in answers if a.answered_at is None and not a.skipped]
    if waiting and request.status == RollRequest.Status.OPEN:
        return []
    rolled = [a for a in answers if a.answered_at is not None]
    if not rolled:
        return []
    systems = {a.character.system for a in answers}
    system = SYSTEMS.get(systems.pop()) if len(systems) == 1 else None
    order = [key for key, _ in request.group_odds or []]
    if request.rule == SYSTEM_RULE:
        if system is None:  # several systems asked: none of them has a group roll of them all
            return []
        found = system.group_result(request.asked_of(system.id).procedure, [a.outcome for a in rolled])
        if found is None:
            return []
        outcome, words = found.outcome, found.summary
        outcome_words = system.outcome_label(outcome)
    else:
        outcome, _ = plain_result(request.rule, [(a.outcome, bool(a.succeeded)) for a in rolled], order)
        words = ""
        # The group's outcome in the words of the system whose character rolled it (the best result), else plain.
        by_key = next((a for a in rolled if a.outcome == outcome), None)
        home = system.id if system is not None else ""
        outcome_words = _words(by_key.character.system if by_key else home, outcome)
    each = []
    for answer in answers:
        if answer.answered_at is not None:
            mark = " (rolled by the GM)" if answer.for_player else ""
            each.append(f"{answer.character.name} {_words(answer.character.system, answer.outcome)}{mark}")
        else:
            each.append(f"{answer.character.name} {'skipped' if answer.skipped else 'did not roll'}")
    summary = f"{rule_words(system, request.rule)}: {', '.join(each)}. The group: {outcome_words}."
    if words:
        summary += f" {words}"
    result = rules_base.RollResult(
        GROUP_PROCEDURE,
        f"Group check: {request.label}"[:200],
        outcome,
        summary[:500],
        odds=odds_from_rows(request.group_odds),
    )
    roller = request.created_by or by
    assert roller is not None  # a request's GM, or the one closing it
    roll = store_roll(None, result, by=roller, visibility=request.group_seen, campaign=request.campaign)
    request.group_roll = roll
    request.group_outcome = outcome[:60]
    request.group_summary = summary[:300]
    request.save(update_fields=["group_roll", "group_outcome", "group_summary"])
    seen = Seen() if request.group_seen == RollRequest.Seen.PUBLIC else gm_only(roll.roller_id)
    asked = tuple(a.character_id for a in answers)
    record(request.campaign_id, GroupChecked(request=request.pk, roll=roll.pk, characters=asked, seen=seen), by=by)
    return ["requests", *(f"character-{c}-requests" for c in asked)]


def _words(system_id: str, key: str) -> str:
    """An outcome in its own system's words (a plain pass or fail, or a system Lantern no longer plays: as is)."""
    system = SYSTEMS.get(system_id)
    return system.outcome_label(key) if system is not None else key.replace("_", " ")


def decide_if_done(request_id: int, by: User | None) -> list[str]:
    """After an answer: the group's outcome if this was the last one (the request's row locked, after the answer's,
    so two last answers at once decide once, the second seeing the first)."""
    request = RollRequest.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=request_id)
    if not request.rule:
        return []
    return _decide(request, by)


def _gm_request(request_id: int, campaign_id: int) -> RollRequest:
    rows = RollRequest.objects.select_for_update(of=("self",)).select_related("campaign")
    request = rows.filter(pk=request_id, campaign_id=campaign_id).first()
    if request is None:
        raise CampaignError("That request is not at this table.")
    return request


@transaction.atomic
def request_skip(*, request_id: int, campaign_id: int, character_id: int, by: User) -> TableWritten:
    """The GM leaves an absent player's character out of a group check: it is no longer waited for."""
    answer = (
        RollRequestAnswer.objects.select_for_update(of=("self",))
        .filter(request_id=request_id, request__campaign_id=campaign_id, character_id=character_id)
        .first()
    )
    if answer is None:
        raise CampaignError("That character was not asked for that roll.")
    request = _gm_request(request_id, campaign_id)
    if request.status != RollRequest.Status.OPEN or request.group_roll_id is not None:
        raise CampaignError("That request is over: there is nobody left to skip.")
    if answer.answered_at is not None or answer.skipped:
        raise CampaignError(f"{answer.character.name} is not waited for any more.")
    answer.skipped = True
    answer.save(update_fields=["skipped"])
    record(campaign_id, RequestAnswered(request=request.pk, characters=(character_id,)), by=by)
    topics = ["requests", f"character-{character_id}-requests"]
    topics += _decide(request, by)
    return written(request.campaign, topics, request)


@transaction.atomic
def request_close(*, request_id: int, campaign_id: int, by: User) -> TableWritten:
    """The GM closes a group check: whoever has not rolled is left out, and the group's outcome is decided from
    those who did (none rolled: no outcome)."""
    request = _gm_request(request_id, campaign_id)
    if not request.rule:
        raise CampaignError("Only a group check is closed; cancel a plain request instead.")
    if request.status != RollRequest.Status.OPEN or request.group_roll_id is not None:
        raise CampaignError("That group check is over already.")
    request.status = RollRequest.Status.CLOSED
    request.save(update_fields=["status"])
    asked = tuple(request.answers.values_list("character_id", flat=True))
    record(campaign_id, RequestEnded(request=request.pk, characters=asked), by=by)
    topics = ["requests", *(f"character-{c}-requests" for c in asked)]
    topics += _decide(request, by)
    return written(request.campaign, topics, request)
