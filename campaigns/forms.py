from __future__ import annotations

from django import forms

from accounts import names
from campaigns.backup import MAX_FILE_BYTES
from campaigns.models import Campaign, Countdown, RollRequest, system_choices
from campaigns.session.clock import CLOCK_COUNT_MAX
from core.converters import MAX_ID


class CampaignForm(forms.ModelForm):
    system = forms.ChoiceField(choices=system_choices, label="Game system")
    also = forms.MultipleChoiceField(
        choices=system_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Also welcome characters of",
        help_text="A mixed table: each character plays by its own system's rules.",
    )

    class Meta:
        model = Campaign
        fields = ["name", "system"]
        labels = {"name": "Campaign name"}

    def clean_name(self) -> str:
        name = names.clean_name(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError("Give the campaign a name.")
        return name


class SystemsForm(forms.Form):
    """The other systems a table welcomes, besides its home system (Campaign.extra_systems)."""

    also = forms.MultipleChoiceField(
        choices=(), required=False, widget=forms.CheckboxSelectMultiple, label="Also welcome characters of"
    )

    def __init__(self, *args, home: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        also = self.fields["also"]
        assert isinstance(also, forms.MultipleChoiceField)
        also.choices = [(key, label) for key, label in system_choices() if key != home]


class JoinForm(forms.Form):
    code = forms.CharField(label="Invite code", max_length=200)

    def clean_code(self) -> str:
        # People paste the whole link as often as the code: accept both.
        code = self.cleaned_data["code"].strip().rstrip("/").rsplit("/", 1)[-1].strip()
        if not code:
            raise forms.ValidationError("Paste the invite code or the whole invite link.")
        return code


class MemberForm(forms.Form):
    PICK = "Pick a person at this table."
    user_id = forms.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        widget=forms.HiddenInput,
        error_messages=dict.fromkeys(("required", "invalid", "min_value", "max_value"), PICK),
    )


class CoGmForm(MemberForm):
    """The owner names a member co-GM (ticked) or makes a co-GM a player again."""

    co_gm = forms.BooleanField(required=False, label="Co-GM")


class HandOverForm(MemberForm):
    """The owner hands the table to a member, and says what seat they keep: the page offers co-GM first; a call
    that does not say keeps the old meaning (the old owner becomes a player, the fewer rights)."""

    STAY = [("cogm", "Stay as a co-GM"), ("player", "Stay as a player")]
    stay = forms.ChoiceField(
        choices=STAY,
        required=False,
        error_messages={"invalid_choice": "Say whether you stay as a co-GM or a player."},
    )

    def clean_stay(self) -> str:
        return self.cleaned_data.get("stay") or "player"


class ClockForm(forms.Form):
    """The GM moves the table's clock by minutes of game time, or a running fight's turn to its next step (rounds
    belong to the encounter tracker; the old round actions stay known so that a stale page gets a sentence, not a
    bare "invalid choice")."""

    action = forms.ChoiceField(
        choices=[
            ("next_round", "Next round"),
            ("end_combat", "End combat"),
            ("advance", "Advance time"),
            ("next_turn", "Next turn"),
        ]
    )
    minutes = forms.IntegerField(min_value=1, max_value=60 * 24 * 30, required=False)

    def clean(self):
        data = super().clean()
        if data.get("action") == "advance" and not data.get("minutes"):
            raise forms.ValidationError("Say how many minutes pass.")
        return data


PLAYER_CHOOSES = "— the player chooses —"


def _fixed_fields(procedure, sheet, prefix: str, label_prefix: str = "") -> dict[str, forms.Field]:
    """The inputs of ``procedure`` the GM may fix, as fields named ``<prefix><param>`` (blank: the player's)."""
    fields: dict[str, forms.Field] = {}
    for param in procedure.params(sheet) if procedure is not None and sheet is not None else ():
        name = f"{prefix}{param.name}"
        common = {"label": f"{label_prefix}{param.label}", "help_text": param.help, "required": False}
        if param.kind == "int":
            fields[name] = forms.IntegerField(min_value=param.minimum, max_value=param.maximum, **common)
        elif param.kind == "choice":
            fields[name] = forms.ChoiceField(choices=[("", PLAYER_CHOOSES), *param.choices], **common)
        elif param.kind == "bool":
            fields[name] = forms.ChoiceField(choices=[("", PLAYER_CHOOSES), ("yes", "Yes"), ("no", "No")], **common)
    return fields


# At a mixed table (issue 42) the home system's roll keeps the plain names ("procedure", "fix-<input>"); each other
# system's are "procedure@<system>" and "fix@<system>@<input>", and "check" asks a shared check of every system.
def other_procedure(system_id: str) -> str:
    return f"procedure@{system_id}"


def other_fixed(system_id: str) -> str:
    return f"fix@{system_id}@"


def request_form(
    procedures, procedure, sheet, characters, *, data=None, rules=(), others=(), checks=(), home_name: str = ""
):
    """The GM's roll request: which roll, the inputs the GM fixes (blank: the player's choice), who, how long.

    ``procedure``'s inputs come from ``sheet`` (a character at the table) so choices drawn from a sheet show;
    the service checks the fixed inputs against every character asked. At a mixed table, ``checks``: the shared
    checks (key, words) and ``others``: each other system seated, as (id, name, its procedures, the one picked,
    one of its sheets); the home system's roll is then labelled with its name.
    """
    fields: dict[str, forms.Field] = {}
    if checks:
        fields["check"] = forms.ChoiceField(
            choices=[("", "None: pick each system's roll"), *checks],
            required=False,
            label="Check with",
            help_text="One check every system answers with its own nearest roll.",
        )
    fields["procedure"] = forms.ChoiceField(
        choices=[(key, proc.label) for key, proc in procedures.items()],
        label=f"{home_name}: roll" if others and home_name else "Roll",
        initial=procedure.key if procedure is not None else None,
    )
    for system_id, name, offered, chosen, _ in others:
        fields[other_procedure(system_id)] = forms.ChoiceField(
            choices=[(key, proc.label) for key, proc in offered.items()],
            label=f"{name}: roll",
            initial=chosen.key,
            required=False,  # a shared check picks it
            # an id a CSS selector reads as it is (the page re-draws the form when it changes)
            widget=forms.Select(attrs={"id": f"id_request_procedure_{system_id}"}),
        )
    fields.update(_fixed_fields(procedure, sheet, "fix-", f"{home_name}: " if others and home_name else ""))
    for system_id, name, _, chosen, other_sheet in others:
        fields.update(_fixed_fields(chosen, other_sheet, other_fixed(system_id), f"{name}: "))
    fields["characters"] = forms.MultipleChoiceField(
        choices=[(str(c.pk), c.name) for c in characters],
        widget=forms.CheckboxSelectMultiple,
        label="Ask",
        initial=[str(c.pk) for c in characters],
        error_messages={
            "required": "Pick at least one character to ask.",
            "invalid_choice": "Only characters at this table can be asked for a roll.",
        },
    )
    # A group check (issue 40): the rule that makes the answers one outcome (``rules``: campaigns.session.group_rules),
    # and who sees that outcome.
    fields["rule"] = forms.ChoiceField(
        choices=[("", "None: each answers on their own"), *rules],
        required=False,
        label="Group check",
        help_text="One outcome for the group, by this rule, logged as one line.",
    )
    fields["group_seen"] = forms.ChoiceField(
        choices=RollRequest.Seen.choices,
        initial=RollRequest.Seen.PUBLIC,
        required=False,  # left out (the API, Discord): everyone sees it, as the page's first choice says
        label="Who sees the group's outcome",
    )
    fields["minutes"] = forms.IntegerField(min_value=1, max_value=240, initial=10, label="Open for (minutes)")
    fields["blind"] = forms.BooleanField(
        required=False, label="Blind", help_text="The players roll without seeing the result: only you see it."
    )
    form_class = type("RequestForm", (forms.Form,), fields)
    form = form_class(data=data, auto_id="id_request_%s")
    form.yes_no = {name for name, field in fields.items() if _is_yes_no(name, field)}
    form.fixed_fields = [
        form[name] for name in form.fields if name.startswith(("fix-", "fix@"))
    ]  # the page folds these
    form.roll_picks = [form[name] for name in form.fields if name == "check" or name.startswith("procedure")]
    form.asked_label = procedure.label if procedure is not None and not others else "a roll"  # the Ask button
    form.other_systems = [system_id for system_id, *_ in others]
    return form


def _is_yes_no(name: str, field: forms.Field) -> bool:
    choices = getattr(field, "choices", None)
    return name.startswith(("fix-", "fix@")) and choices is not None and ("yes", "Yes") in list(choices)


def fixed_from(form) -> dict:
    """The inputs the GM set on a valid request form, by param name (blank ones are the player's): the home
    system's roll's (a table of one system: the only one)."""
    return _fixed_with(form, "fix-")


def _fixed_with(form, prefix: str) -> dict:
    fixed = {}
    for name, value in form.cleaned_data.items():
        if name.startswith(prefix) and value not in (None, ""):
            fixed[name.removeprefix(prefix)] = value == "yes" if name in form.yes_no else value
    return fixed


def picks_from(form) -> tuple[str, dict[str, str], dict[str, dict]]:
    """A valid mixed table's request form read: (the shared check, each other system's roll picked, each other
    system's inputs the GM set)."""
    others = getattr(form, "other_systems", [])
    procedures = {s: form.cleaned_data.get(other_procedure(s)) or "" for s in others}
    fixed = {s: _fixed_with(form, other_fixed(s)) for s in others}
    return form.cleaned_data.get("check") or "", {s: p for s, p in procedures.items() if p}, fixed


def npc_form(fields, *, data=None, system: str | None = None):
    """An NPC's name and the system's stat block (GameSystem.npc_fields), with the rules' bounds. ``system``: at a
    mixed table, the system whose stat block this is (a form per system, its ids apart, the key sent with it)."""
    form_fields: dict[str, forms.Field] = {}
    if system is not None:
        form_fields["system"] = forms.CharField(widget=forms.HiddenInput, initial=system, required=False)
    form_fields["name"] = forms.CharField(
        max_length=100, label="Name", error_messages={"required": "Give the NPC a name."}
    )
    for param in fields:
        common = {"label": param.label, "help_text": param.help, "initial": param.default}
        if param.kind == "choice":
            form_fields[param.name] = forms.ChoiceField(choices=list(param.choices), **common)
        else:
            form_fields[param.name] = forms.IntegerField(min_value=param.minimum, max_value=param.maximum, **common)
    form_fields["keep"] = forms.BooleanField(required=False, label="Also keep on the saved list")
    form_class = type("NpcForm", (forms.Form,), form_fields)
    form = form_class(data=data, auto_id="id_npc_%s" if system is None else f"id_npc_{system}_%s")
    form.npc_system = system  # which of the page's forms this is, when it comes back with its errors
    return form


class DamageForm(forms.Form):
    amount = forms.IntegerField(min_value=0, max_value=10_000, label="Damage")
    ignore_armour = forms.BooleanField(required=False, label="Ignores armour")


class StatusForm(forms.Form):
    name = forms.CharField(max_length=40, label="Status")
    rounds = forms.IntegerField(min_value=1, max_value=100, initial=1, label="Rounds")


class EncounterForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="Encounter", initial="Encounter")


class UnitSelect(forms.Select):
    """The system's time units, each option carrying its length in seconds and its short name, so the page can
    say what the count comes to before the GM lets it pass ("60 minutes = 6 turns", static/js/lantern.js)."""

    def __init__(self, units) -> None:
        super().__init__()
        self.units = {unit.key: unit for unit in units}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        unit = self.units.get(str(value))
        if unit is not None:
            option["attrs"]["data-seconds"] = str(unit.length)
            option["attrs"]["data-name"] = unit.label.split(" (")[0].lower()
        return option


class CountField(forms.IntegerField):
    """The browser is told the clock's bounds (1 to CLOCK_COUNT_MAX); the field itself takes any number it can
    hold, so clock_advance says what is wrong in its own words."""

    def widget_attrs(self, widget):
        return {**super().widget_attrs(widget), "min": 1, "max": CLOCK_COUNT_MAX, "class": "short"}


def time_form(units, *, data=None):
    """The game clock's one control (issue 36, item 7): how many of which of the system's time units pass, the
    bound said in the label and kept by the browser. The server's own bounds stay wide, so that whatever comes
    is refused by clock_advance with its sentence ("at most 30")."""
    fields = {
        "unit": forms.ChoiceField(choices=[(u.key, u.label) for u in units], label="Unit", widget=UnitSelect(units)),
        "count": CountField(min_value=-(10**6), max_value=10**6, initial=1, label=f"How many (1 to {CLOCK_COUNT_MAX})"),
    }
    return type("TimeForm", (forms.Form,), fields)(data=data, auto_id="id_time_%s")


class CountdownForm(forms.Form):
    """A new countdown (issue 41); the service keeps the bounds and says what is wrong."""

    name = forms.CharField(
        max_length=200, label="Name", widget=forms.TextInput(attrs={"placeholder": "Ritual completes"})
    )
    segments = forms.IntegerField(min_value=-(10**6), max_value=10**6, initial=6, label="Segments (1 to 24)")
    shown = forms.ChoiceField(choices=Countdown.Shown.choices, initial=Countdown.Shown.ALL, label="Players")
    every_minutes = forms.IntegerField(
        required=False,
        min_value=-(10**9),
        max_value=10**9,
        label="Fills a segment every … minutes of game time",
        help_text="Leave empty to tick it by hand only.",
    )


class RealtimeForm(forms.Form):
    rate = forms.IntegerField(min_value=-(10**6), max_value=10**6, initial=1, label="Game seconds per real second")


class LightTimeForm(forms.Form):
    minutes = forms.IntegerField(min_value=-(10**9), max_value=10**9, label="Minutes of light left")


class NoteForm(forms.Form):
    text = forms.CharField(max_length=5000, required=False, widget=forms.Textarea(attrs={"rows": 4}), label="Note")


class BackupForm(forms.Form):
    file = forms.FileField(label="Campaign backup (.json)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(
                f"That file is too large to be a Lantern campaign ({MAX_FILE_BYTES // 1024 // 1024} MB at most)."
            )
        return upload


# --- play sessions and their chronicle (issue 40) -------------------------------------------------------------


class SessionEndForm(forms.Form):
    summary = forms.CharField(max_length=5000, required=False, widget=forms.Textarea(attrs={"rows": 3}))


class SummaryForm(forms.Form):
    text = forms.CharField(
        max_length=5000, required=False, widget=forms.Textarea(attrs={"rows": 4}), label="The GM's summary"
    )


class ChronicleLineForm(forms.Form):
    """A member's own line on one entry of the chronicle (``entry``: its key, a hidden field beside the entry)."""

    entry = forms.RegexField(regex=r"^[a-z]+(-[0-9]{1,18})?$", max_length=40, widget=forms.HiddenInput)
    text = forms.CharField(max_length=500, label="Your line")

    def __init__(self, *args, editing: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if editing:
            del self.fields["entry"]
