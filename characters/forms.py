"""Input validation for character pages. Roll inputs are described by the rules (rules.base.Param)."""

from __future__ import annotations

from django import forms
from django.http import QueryDict

from accounts.forms import NameField
from characters.models import NOTES_MAX, Item, Roll
from rules import base as rules_base


def procedure_form(
    procedure,
    sheet: rules_base.Sheet | None,
    *,
    data=None,
    table_characters=(),
    id_prefix: str = "",
    gm: bool = True,
    prefixed: bool = False,
):
    """A form whose fields are the procedure's params: used to render controls with labels and help.

    ``prefixed``: field names become ``<procedure>-<param>`` (the sheet's roll panel), so the open forms of
    the panel can travel in one request and each procedure still finds its own inputs (``raw_params``).
    Ids get a per-form prefix so several forms share a page.
    """
    fields: dict[str, forms.Field] = {}
    for param in procedure.params(sheet):
        if gm or not param.gm_only:
            fields[param.name] = _field(param, table_characters)
    form_class = type("ProcedureForm", (forms.Form,), fields)
    if prefixed:  # names and ids "save-attribute", "id_save-attribute"
        return form_class(data=data, prefix=procedure.key, auto_id="id_%s")
    return form_class(data=data, auto_id=f"id_{id_prefix or procedure.key}_%s")


def _field(param: rules_base.Param, table_characters) -> forms.Field:
    common = {"label": param.label, "help_text": param.help, "initial": param.default}
    if param.kind == "bool":
        # An option that costs something (a push) unticks itself after each roll (static/js/lantern.js).
        attrs = {"data-resets": "true"} if param.resets else {}
        return forms.BooleanField(required=False, widget=forms.CheckboxInput(attrs=attrs), **common)
    if param.kind == "int":
        return forms.IntegerField(min_value=param.minimum, max_value=param.maximum, required=False, **common)
    if param.kind == "choice":
        return forms.ChoiceField(choices=list(param.choices), required=False, **common)
    if param.kind == "multichoice":
        return forms.MultipleChoiceField(
            choices=list(param.choices), required=False, widget=forms.CheckboxSelectMultiple, **common
        )
    if param.kind == "character":
        choices = [("", "— none —")] + [(str(c.pk), c.name) for c in table_characters]
        return forms.ChoiceField(choices=choices, required=False, **common)
    if param.minimum:  # a text the rules need (a C&C name): marked required, the field says so beside it
        return forms.CharField(
            max_length=200, min_length=param.minimum, error_messages={"required": "Required."}, **common
        )
    return forms.CharField(max_length=200, required=False, **common)


# What a roll form sends besides the procedure's own inputs.
FORM_KEYS = {
    "csrfmiddlewaretoken",
    "visibility",
    "version",
    "system",
    "campaign",
    "next",
    "panel",
    "log",
    "hand",
    "npc_target",
}  # npc_target: campaigns.session.hits


def raw_params(
    procedure,
    sheet: rules_base.Sheet | None,
    query,
    *,
    gm: bool = True,
    prefixed: bool = False,
    refuse_others: bool = False,
) -> dict:
    """Pick the procedure's inputs out of a QueryDict (lists for multi-choices), ignoring other keys.

    ``prefixed``: the inputs come named ``<procedure>-<param>`` (the roll controls, the one shape they send),
    else plainly ``<param>``. ``refuse_others``: the query is one roll control's alone, so any key but its
    inputs and ``FORM_KEYS`` is refused by name rather than ignored (a plain ``<param>`` would roll without it).
    Inputs only the GM sets (a DN, say) are refused from anyone else; left out, the rules' default applies.
    """
    if refuse_others:
        others = sorted(key for key in query if not key.startswith(f"{procedure.key}-") and key not in FORM_KEYS)
        if others:
            raise rules_base.RulesError(f"{procedure.label} has no option {', '.join(others)}.")
    query = own_inputs(procedure.key, query, strict=prefixed)
    values: dict = {}
    params = procedure.params(sheet)
    unknown = sorted(set(query) - {p.name for p in params} - FORM_KEYS)
    if unknown:
        raise rules_base.RulesError(f"{procedure.label} has no option {', '.join(unknown)}.")
    for param in params:
        if param.gm_only and not gm:
            if param.name in query:
                raise rules_base.RulesError(f"Only the GM sets {param.label.lower()}.")
            continue
        if param.kind == "multichoice":
            values[param.name] = query.getlist(param.name)
        elif param.kind == "bool":
            # An unticked box sends nothing: no. What a ticked one sends ("on") the rules check, refusing
            # anything else (check_params), so a stray "False" is never read as ticked.
            values[param.name] = query.get(param.name) if param.name in query else False
        elif param.name in query:
            values[param.name] = query.get(param.name)
    return values


def plain_inputs(query: QueryDict) -> dict[str, str | list[str]]:
    """A form's fields as a plain mapping for a command (characters.commands): a field sent once is its value, one
    sent several times (a multi-choice's ticks) the list of them."""
    return {name: values[-1] if len(values) == 1 else values for name, values in query.lists()}


def own_inputs(procedure_key: str, query, *, strict: bool = False) -> QueryDict:
    """The inputs of one procedure's panel form with their prefix taken off; without any (and not
    ``strict``: several panel forms may share the query) the query as it came."""
    prefix = f"{procedure_key}-"
    if not strict and not any(key.startswith(prefix) for key in query):
        return query
    own = QueryDict(mutable=True)
    for key in query:
        if key.startswith(prefix):
            own.setlist(key.removeprefix(prefix), query.getlist(key))
    return own


class AdjustForm(forms.Form):
    key = forms.CharField(max_length=40)
    delta = forms.IntegerField(min_value=-1000, max_value=1000)


class VisibilityForm(forms.Form):
    visibility = forms.ChoiceField(choices=Roll.Visibility.choices, initial=Roll.Visibility.PUBLIC, required=False)
    version = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    # The faces of dice rolled at the table, in the order the roll asks for them (rules.hand); empty: the server's.
    hand = forms.CharField(max_length=400, required=False, strip=True)


class CatalogueAddForm(forms.Form):
    entry = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    quantity = forms.IntegerField(min_value=1, max_value=100, initial=1)
    buy = forms.BooleanField(required=False)


class CatalogueSearchForm(forms.Form):
    q = forms.CharField(max_length=100, required=False, label="Search the equipment list")


class CustomItemForm(forms.Form):
    name = NameField(max_length=100)
    kind = forms.ChoiceField(choices=Item.Kind.choices, initial=Item.Kind.GEAR)
    slots = forms.IntegerField(min_value=0, max_value=20, initial=1)
    quantity = forms.IntegerField(min_value=1, max_value=10_000, initial=1)


class ItemUpdateForm(forms.Form):
    quantity = forms.IntegerField(min_value=1, max_value=10_000, required=False)
    worn = forms.BooleanField(required=False)


class RenameForm(forms.Form):
    name = NameField(max_length=100)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class VoidForm(forms.Form):
    reason = forms.CharField(max_length=150, label="Why", help_text="A few words every log shows: “wrong weapon”.")


class RevertForm(forms.Form):
    reason = forms.CharField(
        max_length=150, label="Why", help_text="A few words for the history: “typo”, “the GM ruled it out”."
    )
    version = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    region = forms.ChoiceField(
        choices=[(r, r) for r in ("vitals", "inventory", "details")], required=False, widget=forms.HiddenInput
    )


def details_form(rules, *, data=None, initial=None):
    """Name, notes and the system's descriptive fields (background, age...), edited after creation."""
    fields: dict[str, forms.Field] = {
        "name": NameField(max_length=100),
        "notes": forms.CharField(
            max_length=NOTES_MAX,
            required=False,
            widget=forms.Textarea(attrs={"rows": 5}),
            help_text="Only text; anyone at the table can read it.",
        ),
        "version": forms.IntegerField(min_value=1, widget=forms.HiddenInput),
    }
    for param in rules.detail_params():
        fields[f"detail_{param.name}"] = _field(param, ())
    form_class = type("DetailsForm", (forms.Form,), fields)
    return form_class(data=data, initial=initial, auto_id="id_edit_%s")


class ImportForm(forms.Form):
    file = forms.FileField(label="Character file (.json)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > 512 * 1024:
            raise forms.ValidationError("That file is too large to be a Lantern character (512 KB at most).")
        return upload


def first_error(form) -> str:
    """A refused form's first sentence, named by its field's label."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        return f"{label}: {errors[0]}" if label else errors[0]
    return "Check the form."
