"""Roll request views: the GM's form and list, and a sheet's open requests answered."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands, session
from campaigns.models import Encounter, RollRequest, RollRequestAnswer
from campaigns.selectors import campaigns_of
from campaigns.services import CampaignError
from campaigns.session_view import form_plan, party_odds_for, realtime_view, request_form_for
from campaigns.session_views.common import gm_campaign, gm_write, region_answer
from campaigns.table import party_cards
from characters.forms import plain_inputs, procedure_form, raw_params
from characters.models import Character
from characters.selectors import Seat, character_for, characters_editable_by, characters_visible_to
from characters.sheet_view import OddsShown, hand_dice_offer, odds_shown
from core.htmx import HtmxHttpRequest
from rules import SYSTEMS, RulesError
from rules.errors import Refusal


@require_GET
def requests_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return region_answer(request, campaign, "requests")


@require_GET
def request_fields(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM's request form for the roll picked: its inputs change with it."""
    campaign = gm_campaign(request, pk)
    procedure = request.GET.get("procedure", "")
    return region_answer(request, campaign, "request-form", procedure=procedure, picks=request.GET)


@require_GET
def request_odds(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Each ticked character's exact odds at the roll the GM is composing, and the party's: re-fetched as the GM
    types (the request form's own fields, sent as they stand). Only the campaign's GM; a bad input is a 422 with a
    sentence (htmx shows it in the box)."""
    campaign = gm_campaign(request, pk)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    procedure = request.GET.get("procedure", "")
    cards = party_cards(campaign)
    form = request_form_for(system, cards, procedure, data=request.GET)
    party_odds, error = _composed_odds(system, cards, procedure, form, request.GET)
    context = {"campaign": campaign, "system_id": campaign.system, "party_odds": party_odds, "odds_error": error}
    return render(request, "campaigns/_session.html#request-odds", context, status=422 if error else 200)


def _composed_odds(system, cards, procedure: str, form, sent) -> tuple[session.PartyOdds | None, str]:
    """The odds of the request as the GM's form holds it (``form`` bound to ``sent``), or why there are none."""
    if form is None:
        return None, "Nobody at this table can be asked for a roll yet."
    if procedure not in session.requestable(system):
        return None, f"{system.name} has no roll a player makes called {procedure!r}."
    form.is_valid()
    wrong = {name: errors for name, errors in form.errors.items() if name.startswith(("fix-", "fix@", "procedure@"))}
    if "characters" in form.errors and "characters" in sent:
        wrong["characters"] = form.errors["characters"]
    if wrong:  # an input the GM typed that the form refuses (the minutes are only the sending's business)
        name, errors = next(iter(wrong.items()))
        return None, f"{form.fields[name].label}: {errors[0]}"
    ticked = {int(c) for c in form.cleaned_data.get("characters", ())}
    rule = form.cleaned_data.get("rule", "") if "rule" not in form.errors else ""
    try:
        return party_odds_for(form_plan(system, form), cards, ticked, rule), ""
    except Refusal as problem:
        return None, str(problem)


@require_POST
def request_new(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM asks characters for a roll (campaigns.commands.ask_roll); a refused form is shown again as filled,
    with its odds."""
    procedure = request.POST.get("procedure", "")
    try:
        done = commands.ask_roll(pk, inputs=plain_inputs(request.POST), by=request.user)
    except commands.FormRefused as refused:
        campaign = gm_campaign(request, pk)
        system = SYSTEMS[campaign.system]  # the command found it
        party_odds = _composed_odds(system, refused.cards, procedure, refused.form, request.POST)[0]  # the form's, kept
        return region_answer(
            request,
            campaign,
            "request-form",
            error=str(refused),
            procedure=procedure,
            form=refused.form,
            party_odds=party_odds,
        )
    return region_answer(request, done.campaign, "request-form", procedure=procedure)  # a fresh form, its odds


@require_POST
def request_cancel(request: HtmxHttpRequest, pk: int, request_id: int) -> HttpResponse:
    campaign, _done, error = gm_write(request, pk, commands.cancel_request, request_id)
    return region_answer(request, campaign, "requests", error=error)


@require_GET
def request_what_if(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The "what if" row of the GM's request form: each ticked character's exact chance and the group's before and
    after a table condition (``what_if``), the form's own fields sent as they stand. Reads only; only the GM; a bad
    input is a 422 with a sentence."""
    campaign = gm_campaign(request, pk)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    procedure = request.GET.get("procedure", "")
    cards = party_cards(campaign)
    form = request_form_for(system, cards, procedure, data=request.GET)
    what_if, error = None, ""
    if form is None:
        error = "Nobody at this table can be asked for a roll yet."
    elif not form.is_valid() and any(name != "minutes" for name in form.errors):
        name, errors = next((n, e) for n, e in form.errors.items() if n != "minutes")
        error = f"{form.fields[name].label}: {errors[0]}" if name in form.fields else errors[0]
    else:
        ticked = {int(c) for c in form.cleaned_data.get("characters", ())}
        asked = [(c.character, c.sheet) for c in cards if c.character.pk in ticked]
        try:
            if procedure not in session.requestable(system):
                raise CampaignError(f"{system.name} has no roll a player makes called {procedure!r}.")
            condition, rule = request.GET.get("what_if", ""), form.cleaned_data["rule"]
            what_if = session.plan_what_if(form_plan(system, form), asked, condition, rule)
        except Refusal as problem:
            error = str(problem)
    context = {"campaign": campaign, "system_id": campaign.system, "what_if": what_if, "what_if_error": error}
    return render(request, "campaigns/_session.html#what-if", context, status=422 if error else 200)


def _group_check_door(request: HtmxHttpRequest, pk: int, act) -> HttpResponse:
    """A GM's act on a group check from the requests panel (skip, close, roll for a player): the command decides who
    may; the panel drawn again, with the refusal's sentence if any."""
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    error = ""
    try:
        act(campaign.pk)
    except Refusal as problem:
        if problem.status == 404:
            raise Http404(str(problem)) from None
        error = str(problem)
    return region_answer(request, campaign, "requests", error=error)


@require_POST
def request_skip(request: HtmxHttpRequest, pk: int, request_id: int, character_id: int) -> HttpResponse:
    return _group_check_door(
        request,
        pk,
        lambda campaign_id: commands.skip(
            campaign_id, request_id=request_id, character_id=character_id, by=request.user
        ),
    )


@require_POST
def request_close(request: HtmxHttpRequest, pk: int, request_id: int) -> HttpResponse:
    return _group_check_door(
        request, pk, lambda campaign_id: commands.close(campaign_id, request_id=request_id, by=request.user)
    )


@require_POST
def request_roll_for(request: HtmxHttpRequest, pk: int, request_id: int, character_id: int) -> HttpResponse:
    return _group_check_door(
        request,
        pk,
        lambda campaign_id: commands.roll_for(
            campaign_id, request_id=request_id, character_id=character_id, by=request.user
        ),
    )


def _sheet_seat(request, pk: int, character_id: int) -> Seat:
    """The character at this table as its viewer sees it (404 for one they can't)."""
    seat = character_for(request.user, character_id)
    if seat is None or seat.character.campaign_id != pk:
        raise Http404("No character here.")
    return seat


def _sheet_character(request, pk: int, character_id: int) -> Character:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return get_object_or_404(characters_visible_to(request.user).filter(campaign=campaign), pk=character_id)


def sheet_requests_context(
    user, character: Character, error: str = "", *, can_edit: bool | None = None, show: int | None = None
) -> dict[str, Any]:
    """The requests waiting for one character, one at a time: the one shown (``show``, a request id; by default
    the newest, which is what a toast names) with the form its player answers in one tap, and where it stands
    among the others ("1 of 3"). ``can_edit``: whether the viewer may answer for it, when known (a push draws this
    once per kind of viewer)."""
    now = timezone.now()
    if can_edit is None:
        can_edit = characters_editable_by(user).filter(pk=character.pk).exists()
    waiting = (
        RollRequestAnswer.objects.filter(
            character=character,
            answered_at__isnull=True,
            skipped=False,
            request__status=RollRequest.Status.OPEN,
            request__expires_at__gt=now,
        )
        .select_related("request")
        .order_by("-request__created_at", "-pk")
    )
    answered = (
        RollRequestAnswer.objects.filter(character=character, answered_at__gte=now - session.RECENT)
        .select_related("request", "roll__character", "roll__roller")
        .order_by("-answered_at")[:3]
    )
    waiting_answers = list(waiting)
    at = next((n for n, answer in enumerate(waiting_answers) if answer.request_id == show), 0)
    rows = []
    if waiting_answers:  # only the request shown is drawn with its form and odds; the others are a pager away
        rows.append(_request_row(character, waiting_answers[at], can_edit))
    return {
        "character": character,
        "loaded": True,  # the sheet's placeholder fetches this once; the region itself only listens
        "waiting": rows,
        "waiting_count": len(waiting_answers),
        "position": at + 1,
        "previous": waiting_answers[at - 1].request_id if at > 0 else None,
        "next": waiting_answers[at + 1].request_id if at + 1 < len(waiting_answers) else None,
        "answered": list(answered),
        "can_edit": can_edit,
        "error": error,
        "system_id": character.system,
    }


def _request_row(character: Character, answer: RollRequestAnswer, can_edit: bool) -> dict[str, Any]:
    """One waiting request as the sheet shows it: the form its player answers with (the GM's inputs taken out)
    and the player's own odds, when the viewer may answer and the sheet's numbers are readable."""
    system = SYSTEMS.get(character.system)
    asked = answer.request.asked_of(character.system)  # its own system's roll, at a mixed table too
    proc = system.procedures().get(asked.procedure) if system else None
    form = shown = None
    if proc is not None and can_edit:
        try:
            sheet = character.checked_sheet()
        except RulesError:
            sheet = None
        if sheet is not None:
            form = procedure_form(proc, sheet, id_prefix=f"rq{answer.pk}", gm=False, table_characters=_table(character))
            for name in asked.inputs:
                form.fields.pop(name, None)
            # The player's own odds, the GM's inputs fixed and theirs at the sheet's defaults (they follow the options).
            shown = odds_shown(character, proc, sheet, dict(asked.inputs))
    # A blind request is answered with Lantern's dice only (the player would see faces they rolled).
    hand = form is not None and not answer.request.blind and hand_dice_offer(character, False)
    return {"answer": answer, "form": form, "hand": hand, "odds": shown, "asked": asked}


def _table(character: Character):
    if character.campaign_id is None:  # a request is always to a character at a table
        return []
    return list(Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk).only("pk", "name"))


@require_GET
def sheet_requests(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The sheet's live region of roll requests (its own template, included from the sheet)."""
    character = _sheet_character(request, pk, character_id)
    show = request.GET.get("show", "")
    context = sheet_requests_context(request.user, character, show=int(show) if show.isdigit() else None)
    return render(request, "campaigns/_sheet_requests.html#sheet-requests", context)


def sheet_fight_context(character: Character) -> dict[str, Any]:
    """The running fight as one PC's sheet shows it: its round, who acts, what hit them last and what their
    last hit did (campaigns.session.hits)."""
    at_table = character.campaign_id is not None
    encounter = Encounter.objects.filter(campaign=character.campaign_id, active=True).first() if at_table else None
    hits = encounter.hits if encounter is not None else {}
    hit, dealt = hits.get(str(character.pk), ""), hits.get(f"{character.pk}:dealt", "")
    context = {"character": character, "encounter": encounter, "hit": hit, "dealt": dealt, "loaded": True}
    if at_table and character.campaign is not None:  # the time of play, ticking when it runs (issue 41)
        context["campaign"], context["realtime"] = character.campaign, realtime_view(character.campaign)
    return context


@require_GET
def sheet_fight(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The sheet's live region of the running fight (its own template, included from the sheet)."""
    character = _sheet_character(request, pk, character_id)
    return render(request, "campaigns/_sheet_fight.html#sheet-fight", sheet_fight_context(character))


@require_GET
def request_answer_odds(request: HtmxHttpRequest, pk: int, request_id: int, character_id: int) -> HttpResponse:
    """The player's odds at a request as they set their own options: the prompt's form, sent as it stands (the
    GM's inputs always win). Who may answer may ask; a bad input is a 422 with a sentence."""
    character = _sheet_character(request, pk, character_id)
    if not characters_editable_by(request.user).filter(pk=character.pk).exists():
        raise Http404
    found = RollRequestAnswer.objects.filter(request_id=request_id, character=character).select_related("request")
    answer = found.first()
    system = SYSTEMS.get(character.system)
    asked = answer.request.asked_of(character.system) if answer is not None else None
    proc = system.procedures().get(asked.procedure) if asked is not None and system is not None else None
    if answer is None or asked is None or proc is None:
        raise Http404
    try:
        sheet = character.checked_sheet()
        given = raw_params(proc, sheet, request.GET, gm=False)
        shown = odds_shown(character, proc, sheet, {**given, **asked.inputs})
    except RulesError as problem:
        shown = OddsShown(error=str(problem))
    context = {"shown": shown, "system_id": character.system}
    failed = bool(shown.error) and not shown.settled
    return render(request, "campaigns/_sheet_requests.html#request-odds", context, status=422 if failed else 200)


@require_POST
def request_answer(request: HtmxHttpRequest, pk: int, request_id: int, character_id: int) -> HttpResponse:
    """A player answers the GM's request from their sheet: one tap, the GM's inputs forced."""
    seat = _sheet_seat(request, pk, character_id)
    character, error = seat.character, ""
    try:
        hand, sent = request.POST.get("hand", ""), plain_inputs(request.POST)
        commands.answer_request(seat, request_id=request_id, inputs=sent, by=request.user, hand=hand)
    except Refusal as problem:
        error = str(problem)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(character)
    context = sheet_requests_context(request.user, character, error=error)
    return render(request, "campaigns/_sheet_requests.html#sheet-requests", context, status=422 if error else 200)
