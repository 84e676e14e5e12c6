"""Exploration clock views: time advanced, daylight set; real time, lights' time and countdowns (issue 41)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.forms import CountdownForm
from campaigns.models import Membership
from campaigns.selectors import campaigns_of, membership_of
from campaigns.services import CampaignError, TableWritten
from campaigns.session_views.common import gm_campaign, gm_write, region_answer, valid_form
from core.htmx import HtmxHttpRequest
from rules.errors import Refusal


@require_GET
def time_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return region_answer(request, campaign, "time")


@require_POST
def time_advance(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM moves the clock by the system's units: lights burn and food is eaten on every sheet, live."""
    campaign, _done, error = gm_write(request, pk, commands.advance_time)
    return region_answer(request, campaign, "time", error=error)


@require_POST
def time_daylight(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM says the party is in daylight, or in the dark where only its own lights shine."""
    campaign, _done, error = gm_write(request, pk, commands.set_daylight)
    return region_answer(request, campaign, "time", error=error)


# --- real time, lights' time, countdowns (issue 41) ---------------------------------------------------------------


def _number(raw: str, sentence: str) -> int:
    text = (raw or "").strip()
    if not text.lstrip("-").isdigit() or len(text) > 9:
        raise CampaignError(sentence)
    return int(text)


def _gm_writes(request: HtmxHttpRequest, pk: int, region: str, write: Callable[[Membership], TableWritten]):
    """One of the GM's writes through the command layer, answered with its region (its refusal shown there)."""
    campaign = gm_campaign(request, pk)
    error = ""
    try:
        seat = membership_of(request.user, campaign)
        assert seat is not None  # gm_campaign() lets only the GM in
        campaign = write(seat).campaign
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, region, error=error)


def _gm_writes_number(
    request: HtmxHttpRequest,
    pk: int,
    region: str,
    field: str,
    sentence: str,
    write: Callable[[Membership, int], TableWritten],
    default: str = "",
) -> HttpResponse:
    """``_gm_writes`` of a write that takes one whole number from the form (``sentence`` when it is not one)."""
    raw = request.POST.get(field, default)
    return _gm_writes(request, pk, region, lambda seat: write(seat, _number(raw, sentence)))


@require_POST
def realtime_start(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM starts game time running with the wall clock: it runs on the server until paused."""

    def start(seat: Membership, rate: int) -> TableWritten:
        return commands.run_realtime(seat, running=True, rate=rate, by=request.user)

    sentence = "Say how many game seconds pass in a real second."
    return _gm_writes_number(request, pk, "time", "rate", sentence, start, default="1")


@require_POST
def realtime_pause(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _gm_writes(request, pk, "time", lambda seat: commands.run_realtime(seat, running=False, by=request.user))


@require_POST
def light_time(request: HtmxHttpRequest, pk: int, item_id: int) -> HttpResponse:
    """The GM sets how long one light at the table has left (logged in its sheet's history)."""

    def set_time(seat: Membership, minutes: int) -> TableWritten:
        return commands.set_light_time(seat, item_id=item_id, minutes=minutes, by=request.user)

    sentence = "Say how many minutes of light it has left."
    return _gm_writes_number(request, pk, "time", "minutes", sentence, set_time)


@require_GET
def countdowns_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return region_answer(request, campaign, "countdowns")


@require_POST
def countdown_new(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def make(seat: Membership) -> TableWritten:
        data = valid_form(CountdownForm(request.POST))
        fields = {key: data[key] for key in ("name", "segments", "shown", "every_minutes")}
        return commands.make_countdown(seat, **fields, by=request.user)

    return _gm_writes(request, pk, "countdowns", make)


@require_POST
def countdown_tick(request: HtmxHttpRequest, pk: int, countdown_id: int) -> HttpResponse:
    def tick(seat: Membership, step: int) -> TableWritten:
        return commands.tick_countdown(seat, countdown_id=countdown_id, step=step, by=request.user)

    sentence = "A countdown moves one segment at a time."
    return _gm_writes_number(request, pk, "countdowns", "step", sentence, tick, default="1")


@require_POST
def countdown_show(request: HtmxHttpRequest, pk: int, countdown_id: int) -> HttpResponse:
    shown = request.POST.get("shown", "")
    return _gm_writes(
        request,
        pk,
        "countdowns",
        lambda seat: commands.show_countdown(seat, countdown_id=countdown_id, shown=shown, by=request.user),
    )


@require_POST
def countdown_remove(request: HtmxHttpRequest, pk: int, countdown_id: int) -> HttpResponse:
    return _gm_writes(
        request,
        pk,
        "countdowns",
        lambda seat: commands.remove_countdown(seat, countdown_id=countdown_id, by=request.user),
    )
