"""A sheet's past: its history (every change, field by field, and Revert) and one roll's corrections (void,
blind results applied). HTTP only, as ``characters.views``, whose access checks and answers these share."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from characters import commands, services, table
from characters import history as change_history
from characters.forms import RevertForm, VoidForm, first_error
from characters.models import Roll
from characters.selectors import rolls_visible_to
from characters.sheet_view import reverted_by
from characters.views import respond, visible_seat
from core.htmx import HtmxHttpRequest
from rules import SYSTEMS, RulesError


def history(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Every change to a character, field by field (who, when, from → to), newest first; revert from here."""
    seat = visible_seat(request, pk)
    character, can_edit = seat.character, seat.viewer.can_edit
    rules = SYSTEMS.get(character.system)
    hidden = () if rules is None or can_edit else rules.private_fields
    label = rules.field_label if rules is not None else (lambda path: path)
    wanted = request.GET.get("field", "")[:100]
    changes = list(character.changes.select_related("by", "reverted_by")[:200])
    entries, fields = [], {}
    for change in changes:
        rows = change_history.field_changes(change.before, change.after, label, hidden)
        fields.update({row["field"]: row["label"] if row["field"] != "items" else "Items" for row in rows})
        if wanted and not any(row["field"] == wanted for row in rows):
            continue
        entries.append({"change": change, "rows": rows, "reverted_by": reverted_by(change)})
    context = {
        "character": character,
        "entries": entries,
        "fields": sorted(fields.items(), key=lambda pair: pair[1].lower()),
        "wanted": wanted,
        "viewer": seat.viewer,
        "revert_form": RevertForm(auto_id=False),
    }
    return render(request, "characters/history.html", context)


@require_POST
def revert(request: HtmxHttpRequest, pk: int, change_id: int) -> HttpResponse:
    """Put one change back, with a reason: from the history page, or the sheet's Undo right after a change."""
    seat = commands.editable(request.user, pk)
    character = seat.character
    form = RevertForm(request.POST)
    region = form.data.get("region", "")
    region = region if region in ("vitals", "inventory", "details") else ""  # an Undo on the sheet answers there
    try:
        if not form.is_valid():
            raise RulesError(first_error(form))
        written, given_back = table.revert_change(
            character_id=character.pk,
            change_id=change_id,
            by=request.user,
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )
    except RulesError as error:
        if region:
            return respond(request, seat, region, error=str(error))
        messages.error(request, str(error))
        return redirect("characters:history", pk=character.pk)
    if region:
        return respond(request, seat, region, written=written)
    messages.success(request, " ".join(["Reverted: the history shows it as a new change.", *_given_back(given_back)]))
    return redirect("characters:history", pk=character.pk)


def roll_fix(request: HtmxHttpRequest, roll_id: int) -> HttpResponse:
    """One roll and its corrections: void it with a reason (the GM; its roller within a minute), or apply what a
    blind roll would change (the GM). The line, struck through or applied, reaches every open page by push."""
    roll = rolls_visible_to(request.user).filter(pk=roll_id).select_related("character", "roller", "voided_by").first()
    if roll is None or roll.campaign_id is None:
        raise Http404("No roll here.")
    form = VoidForm(request.POST or None)
    if request.method == "POST":
        try:
            if request.POST.get("action") == "apply":
                services.blind_apply(roll_id=roll.pk, by=request.user)
                messages.success(request, "Applied to the sheet.")
            else:
                if not form.is_valid():
                    raise RulesError(first_error(form))
                reason = form.cleaned_data["reason"]
                _roll, given_back = commands.void_roll(request.user, roll_id=roll.pk, reason=reason)
                messages.success(
                    request, " ".join(["Voided: it stays in every log, struck through.", *_given_back(given_back)])
                )
        except RulesError as error:
            context = _fix_context(request, roll, form, str(error))
            return render(request, "characters/roll_fix.html", context, status=422)
        return redirect("characters:roll_fix", roll_id=roll.pk)
    return render(request, "characters/roll_fix.html", _fix_context(request, roll, form))


def _given_back(words: list[str]) -> list[str]:
    """The NPCs a void or a revert gave back what the roll's hits took, as the message's sentences."""
    return [f"{w}." for w in words]


def _fix_context(request, roll: Roll, form, error: str = "") -> dict[str, Any]:
    roll.refresh_from_db(fields=["voided_at", "void_reason", "voided_by", "held_applied", "undone", "revision"])
    campaign = roll.campaign
    if campaign is None:  # rolls away from a table are their owner's alone: nothing to fix from a table
        raise Http404
    gm = table.is_gm(request.user, campaign.pk)
    view = "gm" if gm else "roller" if roll.roller_id == request.user.pk else "peer"
    # The roll's own character's system's words (issue 42), the home system's for the GM's own rolls.
    system_id = roll.character.system if roll.character is not None else campaign.system
    context = {"roll": roll, "form": form, "error": error, "campaign": campaign, "system_id": system_id}
    context["also_back"] = table.void_preview(roll) if roll.voided_at is None else []
    return {**context, "roll_view": view}
