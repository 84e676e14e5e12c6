"""Character pages: HTTP only. Authorise through selectors, change through services, render fragments."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from typing import Any, TypedDict

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from characters import commands, region_cache, services, table
from characters.forms import (
    AdjustForm,
    CatalogueAddForm,
    CatalogueSearchForm,
    CustomItemForm,
    ImportForm,
    details_form,
    first_error,
    plain_inputs,
    raw_params,
)
from characters.models import Change, Character, Hireling, Item
from characters.region_cache import (
    CACHED_REGIONS,
    LOG_SLOT,
    for_page,
    sheet_body,
    sheet_region,
    undo_for,
    undo_mark,
    viewer_log,
)
from characters.selectors import Seat, character_for
from characters.sheet_view import (
    LIVE_PARTS,
    REGIONS,
    OddsShown,
    hand_dice_offer,
    odds_shown,
    offered_undo,
    picks,
    quick_groups,
    roll_control,
    sheet_view,
)
from characters.templatetags.lantern import TIMES_LATER
from core.htmx import HtmxHttpRequest
from live import journal
from live.hub import CSRF_SLOT
from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules import base as rules_base
from rules.errors import Refusal, Settled

AFTER_SLOT = "__lantern_after__"  # a kept sheet body's stream learns the journal's cursor its page shows from here

# --- reading ---------------------------------------------------------------------------------


def character_list(request: HtmxHttpRequest) -> HttpResponse:
    characters = Character.objects.filter(owner=request.user).select_related("campaign")
    context = {
        "characters": characters,
        "playable": [(key, SYSTEM_NAMES[key]) for key in SYSTEMS],
        "campaigns": table.campaigns_of(request.user).filter(system__in=list(SYSTEMS)),
        "import_form": ImportForm(),
    }
    return render(request, "characters/list.html", context)


def sheet(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The page: its body as kept for this kind of viewer (characters.region_cache), with this viewer's own log,
    Undo and CSRF token put in."""
    # The journal's head is read with the row, before the rest of the page's reads: its stream gets every entry
    # after it (one written meanwhile twice, harmless), and the viewer's kept log is the log at that head.
    seat = visible_seat(request, pk, with_head=True)
    character, token, log, user = seat.character, get_token(request), _log_filter(request), request.user
    after = seat.head or 0
    body = sheet_body(seat, lambda: _sheet_body(user, seat, log=log))

    def draw_log() -> str:
        own = sheet_view(user, seat, regions=("log",), log=log).context(**{TIMES_LATER: True})
        return render_to_string("characters/sheet.html#log", own)

    body = body.replace(LOG_SLOT, viewer_log(user, seat, log, after, draw_log), 1)
    undo = undo_for(user, character) if seat.viewer.can_edit else None
    if undo is not None:
        own = {"character": character, "csrf_token": token, "undo": undo, "region": undo["region"]}
        body = body.replace(undo_mark(undo["region"]), render_to_string("characters/_undo.html", own), 1)
    return _sheet_page(request, character, body.replace(CSRF_SLOT, token).replace(AFTER_SLOT, str(after), 1))


def _sheet_body(user, seat: Seat, *, log: str) -> tuple[str, bool]:
    """The sheet's body as every viewer of this kind sees it: its live regions as pushed, the roll panel; the
    log's slot, the Undo's marks and CSRF slots empty. Also whether it names the other characters at the table
    (region_cache.sheet_body keeps such a body by their names too)."""
    character = seat.character
    drawn: dict[str, str] = {"log": LOG_SLOT}
    rows = None
    if character.system in SYSTEMS:
        rows = (list(character.items.all()), list(character.hirelings.all()))
        for name in CACHED_REGIONS:
            drawn[name] = for_page(sheet_region(user, seat, name, rows=rows), CSRF_SLOT)
    regions = tuple(name for name in REGIONS if name not in drawn)
    view = sheet_view(user, seat, regions=regions, controls=True, log=log, rows=rows, personal=False)
    context = view.context(drawn=drawn, csrf_token=CSRF_SLOT, journal_cursor=AFTER_SLOT)
    names_the_party = any(control.get("party") for control in view.roll_forms or ())
    return render_to_string("characters/sheet.html", context), names_the_party


def _sheet_page(request, character: Character, body: str, *, status: int = 200) -> HttpResponse:
    return render(
        request,
        "characters/sheet_page.html",
        # The body is drawn once for every viewer of its kind: what it holds says which skip links lead somewhere.
        {
            "character": character,
            "body": mark_safe(body),
            "skip_to_roll": 'id="roll-panel"' in body,
            "skip_to_vitals": 'id="vitals"' in body,
        },
        status=status,
    )  # noqa: S308 - drawn by our templates


@require_GET
def region(request: HtmxHttpRequest, pk: int, name: str) -> HttpResponse:
    """One live region of the sheet, built alone, for htmx to re-fetch when the stream says it changed.

    "details" and "odds" also answer with the odds of the roll panel's open forms (sent along by htmx).
    """
    if name not in LIVE_PARTS:
        raise Http404
    seat = visible_seat(request, pk)
    context = sheet_view(request.user, seat, regions=(name,), panel=request.GET, log=_log_filter(request)).context()
    if name == "odds":
        return render(request, "characters/_panel_odds.html", context)
    return render(request, f"characters/sheet.html#{name}", context)


def _log_filter(request) -> str:
    """The log's filter asked: a roll's answer keeps the one the page sends along."""
    return request.GET.get("log") or request.POST.get("log", "")


# --- writing ---------------------------------------------------------------------------------


def visible_seat(request, pk: int, *, with_head: bool = False) -> Seat:
    """The character, if this viewer may see it (404 otherwise), with what they may do to it (``with_head``:
    and its table's journal head, read in the same query)."""
    seat = character_for(request.user, pk, with_head=with_head)
    if seat is None:
        raise Http404("No character here.")
    return seat


def respond(
    request,
    seat: Seat,
    primary: str,
    *,
    error: str = "",
    extra: dict | None = None,
    written: services.Written | None = None,
    fresh: bool = False,
    in_place: bool = False,
):
    """htmx: the region the form targets, plus the other regions the write changed (``written``: what the
    service returned) out of band, and nothing else; a plain POST goes back where it came from. ``fresh``: show
    the row the write saved as it left it (and its change's Undo), rather than read it again. ``in_place``: a
    question asked where the form was (the Change box's harm offer), drawn on the page for a plain POST too."""
    character = seat.character
    changed = written.regions if written is not None and written.character.pk == character.pk else frozenset()
    loaded = _reload(character, written if fresh else None)
    if written is not None and written.sheet is not None and written.character.pk == character.pk:
        loaded["checked"] = written.sheet
    if not request.htmx:
        if error or in_place:
            after = journal.head(character.campaign_id)
            view = sheet_view(request.user, seat, log=_log_filter(request), **loaded)
            context = view.context(error=error, error_region=primary, csrf_token=get_token(request), **(extra or {}))
            context["journal_cursor"] = after
            page = render_to_string("characters/sheet.html", context)
            return _sheet_page(request, character, page, status=400 if error else 200)
        back = request.POST.get("next", "")
        if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            return redirect(back)  # e.g. a party save made from the GM's table goes back to the table
        return redirect(character)
    others = () if error else tuple(name for name in REGIONS if name in changed and name != primary)
    kept = written is not None and fresh and not error and not extra and "checked" in loaded
    if kept and {primary, *others} <= KEPT_ANSWERS:
        return HttpResponse(_kept_answer(request, seat, (primary, *others), loaded))
    view = sheet_view(request.user, seat, regions=(primary, *others), log=_log_filter(request), **loaded)
    context = view.context(error=error, error_region=primary, **(extra or {}))
    parts = [render(request, f"characters/sheet.html#{primary}", context).content.decode()]
    parts += [
        render(request, f"characters/sheet.html#{name}", {**context, "oob": True}).content.decode() for name in others
    ]
    # 422 for a refused change: htmx is configured (static/js/lantern.js) to swap it so the message shows.
    return HttpResponse("".join(parts), status=422 if error else 200)


KEPT_ANSWERS = frozenset({"vitals", "details"})  # drawn from the write's checked sheet alone: no rows read


def _kept_answer(request, seat: Seat, regions: tuple[str, ...], loaded: Loaded) -> str:
    """A write's answer as the push draws the change for the other open pages of this kind of viewer, from the
    one kept drawing of the new version (region_cache.sheet_region: whichever of the two comes first draws it), with
    this viewer's token and Undo put in: the first region in place, the others out of band."""
    token, character = get_token(request), seat.character
    kept = [
        region_cache.sheet_region(request.user, seat, name, rows=loaded.get("rows"), checked=loaded["checked"])
        for name in regions
    ]
    html = "".join([str(for_page(kept[0], token)), *(part.replace(CSRF_SLOT, token) for part in kept[1:])])
    latest = loaded.get("latest_change")
    undo = offered_undo(request.user, latest, reverted=False) if latest is not None else None
    if undo is not None and undo["region"] in regions:
        own = {"character": character, "csrf_token": token, "undo": undo, "region": undo["region"]}
        html = html.replace(undo_mark(undo["region"]), render_to_string("characters/_undo.html", own), 1)
    return html


class Loaded(TypedDict, total=False):
    """What a write read or made already, for the sheet to show without reading it again (``sheet_view``)."""

    rows: tuple[Iterable[Item], Iterable[Hireling]]
    latest_change: Change
    checked: rules_base.Sheet  # the whole sheet as the write checked it: drawn unchecked while it is what is drawn


def _reload(character: Character, written: services.Written | None = None) -> Loaded:
    """The character's own columns as the write left them; its campaign and owner (which no sheet write
    changes) stay loaded, where a plain refresh_from_db() would drop them and read them again.

    ``written``: what the service returned; its row (read under its lock) is copied rather than read again, and
    its items and hirelings, read along under the lock (``services.lock(with_rows=True)``: the write left
    them), and the change it made go to the sheet as they are."""
    fresh = written.character if written is not None else None
    if fresh is None or fresh.pk != character.pk:
        try:
            character.refresh_from_db(fields=_OWN_COLUMNS)
        except Character.DoesNotExist:  # deleted since the write: as if it had never been there
            raise Http404("No character here.") from None
        return {}
    for column in _OWN_COLUMNS:
        setattr(character, column, getattr(fresh, column))
    loaded: Loaded = {}
    prefetched = getattr(fresh, "_prefetched_objects_cache", {})
    if "items" in prefetched and "hirelings" in prefetched:  # else the answer draws from its checked sheet
        loaded["rows"] = (fresh.items.all(), fresh.hirelings.all())
    if written is not None and written.change is not None:
        loaded["latest_change"] = written.change
    return loaded


_OWN_COLUMNS = [f.attname for f in Character._meta.concrete_fields if not f.is_relation and not f.primary_key]


@require_POST
def adjust(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    form = AdjustForm(request.POST)
    how = {"plain": "plain", "rules": "rules"}.get(request.POST.get("how", ""), "ask")  # the page asks first
    # A plain change reads its row once, locked with its seat; the rules' way rolls, which locks the roller first.
    lock = how != "rules"
    try:
        with transaction.atomic() if lock else nullcontext():
            seat = commands.editable(request.user, pk, lock=lock)
            if not form.is_valid():
                raise RulesError(commands.TRACK_DELTA)
            change = {"key": form.cleaned_data["key"], "delta": form.cleaned_data["delta"]}
            written = commands.adjust(seat, **change, by=request.user, how=how)
    except services.HarmOffered as asked:
        return respond(request, seat, "vitals", extra={"harm_offer": asked.shown}, in_place=True)
    except Refusal as error:
        if error.status == 404:
            raise
        return respond(request, seat, "vitals", error=str(error))
    harm_done = {"harm_done": written.row} if how == "rules" else None
    return respond(request, seat, "vitals", written=written, fresh=True, extra=harm_done)


def _procedure_of(request, pk: int, key: str):
    """The character this viewer edits, its procedure ``key`` and whether the viewer is its GM; 404 for an
    unknown procedure or a GM-only one asked by a player (odds and controls say no more than that)."""
    seat = commands.editable(request.user, pk)
    character = seat.character
    proc = _rules_or_404(character).procedures().get(key)
    gm = seat.viewer.is_gm
    if proc is None or (proc.gm_only and not gm):
        raise Http404
    return character, proc, gm


@require_GET
def odds(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """The exact odds for the modifiers currently picked; re-fetched whenever a toggle changes."""
    character, proc, gm = _procedure_of(request, pk, procedure)
    try:
        sheet = region_cache.checked_sheet(character)
        params = raw_params(proc, sheet, request.GET, gm=gm, prefixed=True, refuse_others=True)
        if request.GET.get("npc_target"):  # against an NPC of the fight: its armour counts
            params = table.target_params(character, procedure, _npc_id(request.GET["npc_target"]), params)
        shown = odds_shown(character, proc, sheet, params)  # read and checked once; with the conditions' chips
        # The dice a hand roll needs move with the inputs: sent along out of band to the faces field's note.
        needs = (
            ""
            if shown.error or not request.htmx
            else services.character_dice_needed(character, procedure, params, sheet=sheet)
        )
    except Refusal as problem:
        shown, needs = OddsShown(error=str(problem), settled=isinstance(problem, Settled)), ""
    error = shown.error
    context = {**vars(shown), "procedure": proc, "system_id": character.system}
    response = render(request, "characters/_odds_box.html", context, status=200 if not error or request.htmx else 400)
    if needs and hand_dice_offer(character, gm):
        response.write(render_to_string("characters/_hand_needs.html", {"key": proc.key, "needs": needs, "oob": True}))
    return response


@require_GET
def quick(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """One asking quick roll's form drawn again for the toggles as the player set them: each button's odds follow
    them (Grit & Flesh's checks: the skill for it, the tools; seed 004, Attribute Checks)."""
    character, proc, _gm = _procedure_of(request, pk, procedure)
    rules = _rules_or_404(character)
    try:
        sheet = region_cache.checked_sheet(character)
    except RulesError as problem:
        return HttpResponse(str(problem), status=422 if request.htmx else 400)
    groups = quick_groups(character, rules, sheet, rules.quick_rolls(sheet), asked=request.GET)
    group = next((g for g in groups if g.procedure == proc.key), None)
    if group is None:
        raise Http404
    return render(request, "characters/_quick_group.html", {"character": character, "group": group})


@require_GET
def control(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """One roll control of the sheet, drawn when first opened: its inputs, odds box, button and result box
    for htmx to put in the placeholder; for a plain GET (no JavaScript), a small page holding it.

    Who may see it is who may make the roll: the character's editors, and the GM for the GM's rolls."""
    character, proc, gm = _procedure_of(request, pk, procedure)
    context: dict[str, Any] = {"character": character, "system_id": character.system}
    try:
        sheet = region_cache.checked_sheet(character)
    except RulesError as problem:
        context.update(error=str(problem), control={"procedure": proc, "open": True})
        status = 422 if request.htmx else 400
    else:
        context["control"] = roll_control(_rules_or_404(character), proc, sheet, character, gm, is_open=True)
        status = 200
    if request.htmx:
        return render(request, "characters/_roll_control.html#control-body", context, status=status)
    context.update(procedure=proc, controls=[context["control"]])
    return render(request, "characters/control.html", context, status=status)


@require_POST
def roll(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.roll(
            seat,
            procedure=procedure,
            inputs=plain_inputs(request.POST),
            prefixed=True,
            by=request.user,
            visibility=request.POST.get("visibility", ""),
            version=request.POST.get("version"),
            hand=request.POST.get("hand", ""),
            npc_target=request.POST.get("npc_target"),
        )
    except Refusal as error:
        if error.status == 404:  # the character went under the lock: a 404, as if it never was (core.refusals)
            raise
        return _roll_answer(request, seat, error=str(error), settled=isinstance(error, Settled))
    return _roll_answer(request, seat, written)


def _npc_id(raw: str) -> int:
    """The NPC an odds box's attack targets, from the form's select: a sentence when it names none."""
    if not raw.isdigit() or int(raw) >= 2**63:
        raise Refusal("Pick an NPC of the running fight as the target.")
    return int(raw)


def _roll_answer(
    request, seat: Seat, written: services.Written | None = None, *, error: str = "", settled: bool = False
) -> HttpResponse:
    """htmx: the result where the roll was made and, for the sheet's own forms, the regions it changed out of
    band (the log with the filter the page sends along); a plain POST goes back."""
    if not request.htmx:
        return respond(request, seat, "log", error=error)
    character = seat.character
    roll = written.row if written is not None else None
    context = {"roll": roll, "error": error, "settled": settled, "system_id": character.system, "viewer": seat.viewer}
    parts = [render(request, "characters/_roll_result.html", context).content.decode()]
    changed = written.regions if written is not None else frozenset()
    if "panel" in request.POST and not error:
        _reload(character)
        others = tuple(name for name in REGIONS if name in changed)
        if others:
            region_context = sheet_view(request.user, seat, regions=others, log=_log_filter(request)).context()
            parts += [
                render(request, f"characters/sheet.html#{name}", {**region_context, "oob": True}).content.decode()
                for name in others
            ]
    return HttpResponse("".join(parts), status=422 if error else 200)


@require_GET
def catalogue(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The equipment picker's matches for what was typed: a fragment for htmx, a page without JavaScript."""
    context = _picker_context(commands.editable(request.user, pk).character, request.GET)
    if request.htmx:
        return render(request, "characters/_catalogue_results.html", context)
    return render(request, "characters/catalogue.html", context, status=400 if "picker_error" in context else 200)


def _picker_context(character: Character, data) -> dict:
    """What the picker shows for the search in ``data`` (its ``q``); a search it can't read lists everything."""
    rules = _rules_or_404(character)
    form = CatalogueSearchForm(data)
    text = form.cleaned_data["q"] if form.is_valid() else ""
    context = {"character": character, "rules": rules, "q": text, **picks(character, rules, text)}
    if not form.is_valid():
        context["picker_error"] = first_error(form)
    return context


@require_POST
def item_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    from_picker = request.htmx and "picker" in request.POST
    try:
        form: CatalogueAddForm | CustomItemForm
        if "entry" in request.POST:
            form = CatalogueAddForm(request.POST)
            if not form.is_valid():
                raise RulesError("Pick an item and a quantity between 1 and 100.")
            written = commands.add_from_catalogue(seat, by=request.user, **_named(form, "entry_id", "quantity", "buy"))
            done = written.change.what if from_picker and written.change is not None else ""
        else:
            form = CustomItemForm(request.POST)
            if not form.is_valid():
                raise RulesError(first_error(form))
            written = commands.add_item(seat, by=request.user, **form.cleaned_data)
            done = ""
    except RulesError as error:
        if from_picker:
            return _picker_answer(request, seat, error=str(error))
        return respond(request, seat, "inventory", error=str(error))
    if from_picker:
        return _picker_answer(request, seat, done=done or "", written=written)
    return respond(request, seat, "inventory", written=written)


def _picker_answer(
    request, seat: Seat, *, done: str = "", error: str = "", written: services.Written | None = None
) -> HttpResponse:
    """A take or a buy made from the picker: its sentence where the picker is, and, out of band, the regions
    it changed (``written``: the inventory, the purse) and the picker's rows, whose room and prices moved with
    them."""
    character = seat.character
    changed = written.regions if written is not None else frozenset()
    _reload(character)
    status = {"done": done, "error": error}
    parts = [render(request, "characters/_catalogue_status.html", status).content.decode()]
    if not error:
        others = tuple(name for name in REGIONS if name in changed)
        context = sheet_view(request.user, seat, regions=others, log=_log_filter(request)).context(oob=True)
        parts += [render(request, f"characters/sheet.html#{name}", context).content.decode() for name in others]
        picks = {**_picker_context(character, request.POST), "oob": True}
        parts.append(render(request, "characters/_catalogue_results.html", picks).content.decode())
    return HttpResponse("".join(parts), status=422 if error else 200)


@require_POST
def item_update(request: HtmxHttpRequest, pk: int, item_id: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.update_item(seat, item_id=item_id, inputs=plain_inputs(request.POST), by=request.user)
    except RulesError as error:
        return respond(request, seat, "inventory", error=str(error))
    return respond(request, seat, "inventory", written=written)


@require_POST
def item_remove(request: HtmxHttpRequest, pk: int, item_id: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.remove_item(seat, item_id=item_id, by=request.user)
    except RulesError as error:
        return respond(request, seat, "inventory", error=str(error))
    return respond(request, seat, "inventory", written=written)


@require_POST
def hire(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.hire(seat, inputs=plain_inputs(request.POST), by=request.user)
    except RulesError as error:
        return respond(request, seat, "hirelings", error=str(error))
    return respond(request, seat, "hirelings", written=written)


@require_POST
def dismiss(request: HtmxHttpRequest, pk: int, hireling_id: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.dismiss(seat, hireling_id=hireling_id, by=request.user)
    except RulesError as error:
        return respond(request, seat, "hirelings", error=str(error))
    return respond(request, seat, "hirelings", written=written)


@require_POST
def offer_answer(request: HtmxHttpRequest, pk: int, offer_id: int, answer: str) -> HttpResponse:
    """Apply or decline what another player's roll would do to this character (its owner or the GM)."""
    seat = commands.editable(request.user, pk)
    try:
        written = commands.answer_offer(seat, offer_id=offer_id, apply=answer == "apply", by=request.user)
    except RulesError as error:
        return respond(request, seat, "vitals", error=str(error))
    return respond(request, seat, "vitals", written=written)


@require_POST
def rename(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    seat = commands.editable(request.user, pk)
    try:
        written = commands.rename(seat, inputs=plain_inputs(request.POST), by=request.user)
    except RulesError as error:
        return respond(request, seat, "details", error=str(error))
    return respond(request, seat, "details", written=written)


def edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Name, notes and the system's descriptive fields, after creation."""
    seat = commands.editable(request.user, pk)
    character = seat.character
    rules = _rules_or_404(character)
    initial = {"name": character.name, "notes": character.notes, "version": character.version}
    initial.update({f"detail_{p.name}": character.state.get(p.name, p.default) for p in rules.detail_params()})
    form = details_form(rules, data=request.POST or None, initial=initial)
    if request.method == "POST":
        try:
            if not form.is_valid():
                raise RulesError(first_error(form))
            data = form.cleaned_data
            details = {p.name: data.get(f"detail_{p.name}") for p in rules.detail_params()}
            services.character_edit_details(
                character_id=character.pk,
                by=request.user,
                name=data["name"],
                notes=data["notes"],
                details={k: (v if v is not None else "") for k, v in details.items()},
                expected_version=data["version"],
            )
        except RulesError as error:
            return render(
                request, "characters/edit.html", {"character": character, "form": form, "error": str(error)}, status=400
            )
        messages.success(request, "Details saved.")
        return redirect(character)
    return render(request, "characters/edit.html", {"character": character, "form": form})


def delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(Character.objects.filter(owner=request.user), pk=pk)
    if request.method == "POST":
        services.character_delete(character_id=character.pk, by=request.user)
        messages.success(request, f"{character.name} is gone.")
        return redirect("characters:list")
    return render(request, "characters/delete.html", {"character": character})


def _rules_or_404(character: Character):
    if character.system not in SYSTEMS:
        raise Http404
    return SYSTEMS[character.system]


def _named(form, *names: str) -> dict[str, Any]:
    """The form's values under the command's names ("entry" → "entry_id")."""
    fields = {"entry_id": "entry"}
    return {name: form.cleaned_data[fields.get(name, name)] for name in names}
