"""Play sessions and their chronicle (issue 40): the GM's start and end on the table page, the chronicle page each
member reads (built for them when read), and players' own lines on it. HTTP only: campaigns.commands decides."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.chronicle.read import reader_of, records
from campaigns.forms import ChronicleLineForm, SessionEndForm, SummaryForm
from campaigns.models import Campaign, Membership, PlaySession
from campaigns.session_views.common import gm_campaign, region_answer, valid_form
from characters.commands import NotHere
from characters.forms import plain_inputs
from core.htmx import HtmxHttpRequest
from rules.errors import Refusal

SESSIONS_PAGE_MAX = 500  # sessions the list page draws: years of weekly play


def _seat(request, pk: int) -> Membership:
    try:
        return commands.table_seat(request.user, pk)
    except NotHere:
        raise Http404 from None


@require_GET
def sessions_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return region_answer(request, _seat(request, pk).campaign, "sessions")


@require_POST
def session_start(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM starts a session (only the GM's table has the button: anyone else is answered 404, as the GM's
    other tools answer them)."""
    campaign = gm_campaign(request, pk)
    error = ""
    try:
        commands.start_session(request.user, pk, plain_inputs(request.POST))
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "sessions", error=error)


@require_POST
def session_end(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = gm_campaign(request, pk)
    error = ""
    try:
        data = valid_form(SessionEndForm(request.POST))
        commands.end_session(request.user, pk, summary=data["summary"])
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "sessions", error=error)


@require_GET
def sessions(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Every session of the table, newest first, each linking to its chronicle."""
    seat = _seat(request, pk)
    rows = list(seat.campaign.play_sessions.all()[:SESSIONS_PAGE_MAX])
    return render(request, "campaigns/sessions.html", {"campaign": seat.campaign, "play_sessions": rows})


def _session(request, pk: int, number: int) -> tuple[Membership, PlaySession]:
    try:
        return commands.play_session(request.user, pk, number)
    except NotHere:
        raise Http404 from None


def chronicle_context(request, campaign: Campaign, seat: Membership, session: PlaySession, **more) -> dict:
    chronicle = records(session, campaign).for_reader(reader_of(request.user, seat))
    return {
        "campaign": campaign,
        "membership": seat,
        "play_session": session,
        "chronicle": chronicle,
        "line_form": ChronicleLineForm(),
        "summary_form": SummaryForm(initial={"text": session.summary}),
        **more,
    }


def _answer(request, seat: Membership, session: PlaySession, error: str = "") -> HttpResponse:
    """The chronicle after a write: its region for htmx, the page again otherwise (400 with the refusal)."""
    if not request.htmx and not error:
        return redirect(reverse("campaigns:chronicle", args=[seat.campaign_id, session.number]) + "#chronicle")
    context = chronicle_context(request, seat.campaign, seat, session, error=error)
    if request.htmx:
        return render(request, "campaigns/chronicle.html#chronicle", context)
    return render(request, "campaigns/chronicle.html", context, status=400)


@require_GET
def chronicle(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """One session's chronicle, as this member may read it (a player's leaves out what only the GM saw)."""
    seat, session = _session(request, pk, number)
    context = chronicle_context(request, seat.campaign, seat, session)
    if request.htmx:
        return render(request, "campaigns/chronicle.html#chronicle", context)
    return render(request, "campaigns/chronicle.html", context)


@require_POST
def chronicle_summary(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    gm_campaign(request, pk)
    seat, session = _session(request, pk, number)
    error = ""
    try:
        data = valid_form(SummaryForm(request.POST))
        session = commands.write_summary(request.user, pk, number, text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return _answer(request, seat, session, error)


@require_POST
def line_add(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    seat, session = _session(request, pk, number)
    error = ""
    try:
        data = valid_form(ChronicleLineForm(request.POST))
        commands.add_line(request.user, pk, number, entry=data["entry"], text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return _answer(request, seat, session, error)


@require_POST
def line_edit(request: HtmxHttpRequest, pk: int, number: int, line_id: int) -> HttpResponse:
    seat, session = _session(request, pk, number)
    error = ""
    try:
        data = valid_form(ChronicleLineForm(request.POST, editing=True))
        commands.edit_line(request.user, pk, line_id, text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return _answer(request, seat, session, error)


@require_POST
def line_remove(request: HtmxHttpRequest, pk: int, number: int, line_id: int) -> HttpResponse:
    seat, session = _session(request, pk, number)
    error = ""
    try:
        commands.remove_line(request.user, pk, line_id)
    except Refusal as problem:
        error = str(problem)
    if not request.htmx and not error:
        messages.success(request, "Your line is gone.")
    return _answer(request, seat, session, error)
