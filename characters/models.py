"""Characters, their inventory and hirelings, the equipment catalogues, and the roll log.

A character's system-specific numbers live in ``state``, a JSON document that the system's rules
module validates on every write (rules.SYSTEMS[...].validate_state). Five systems share almost no
fields, so one JSON column with a rules-owned schema keeps each system a module of its own rather
than five sets of columns and migrations.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.urls import reverse

from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules import base as rules_base
from rules.validation import COST_MAX, QUANTITY_MAX, SLOTS_MAX, WAGE_MAX


def system_choices() -> list[tuple[str, str]]:
    """The systems a character or campaign can be about, read when asked: a new system changes no migration."""
    return list(SYSTEM_NAMES.items())


def stamp(settings: dict, conditions: dict, hand_dice: str = "") -> str:
    """What the table adds to a sheet, as a short digest that drawn regions are kept and compared by."""
    table = json.dumps([settings, conditions, hand_dice], sort_keys=True, default=str)
    return hashlib.blake2b(table.encode(), digest_size=6).hexdigest()


NOTES_MAX = 2000


class Character(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters")
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="characters"
    )
    system = models.CharField(max_length=32, choices=system_choices)
    name = models.CharField(max_length=100)
    state = models.JSONField(default=dict)
    # The shape ``state`` was saved in (GameSystem.state_version, rules/upgrades.py): a row saved before a rule change
    # reshaped the state is upgraded as it is loaded, and a save stores the version it now has.
    state_version = models.PositiveSmallIntegerField(default=1)
    notes = models.TextField(blank=True, max_length=NOTES_MAX, help_text="The player's own notes: looks, goals, debts.")
    # Bumped on every write; a form from a stale tab carries an old version and is refused.
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A saved state is in its system's shape now (every write validates it, every load upgrades it), so it is
        stored with that version; a newer version (a row this Lantern could not read) is never lowered."""
        system = SYSTEMS.get(self.system)
        fields = kwargs.get("update_fields")
        if system is not None and self.state_version <= system.state_version and (fields is None or "state" in fields):
            self.state_version = system.state_version
            if fields is not None:
                kwargs["update_fields"] = {*fields, "state_version"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("characters:sheet", args=[self.pk])

    @classmethod
    def from_db(cls, db, field_names, values):
        """A row saved before its system's last reshape comes out in today's shape, so every reader of ``state``
        (the rules, history's diffs, the next write) sees the one shape; a state that will not upgrade (saved by a
        newer Lantern) is left as it is for ``to_sheet`` to refuse with a sentence."""
        character = super().from_db(db, field_names, values)
        character._upgrade_state()
        return character

    def _upgrade_state(self) -> None:
        if not self.get_deferred_fields().isdisjoint({"state", "state_version", "system"}):
            return  # a partial read (names, ids): nothing of the state to upgrade, and nothing read to find out
        system = SYSTEMS.get(self.system)
        if system is None or self.state_version == system.state_version:
            return
        try:
            self.state = system.upgrade_state(self.state, self.state_version)
        except RulesError:
            return
        self.state_version = system.state_version

    @property
    def system_name(self) -> str:
        return SYSTEM_NAMES.get(self.system, self.system)

    @property
    def topic(self) -> str:
        """The live-update event name for this character's fragments."""
        return f"character-{self.pk}"

    def region_topic(self, region: str) -> str:
        """The event one region of this character's sheet listens to ("character-12-vitals")."""
        return f"{self.topic}-{region}"

    def to_sheet(self, items=None, hirelings=None, settings=None, table=None) -> rules_base.Sheet:
        """The rules' view of this character. ``settings``: its table's rule settings, when the caller has
        them already (a table page building every card); read from the campaign otherwise. ``table``: the
        table's conditions, likewise (Campaign.conditions)."""
        items = self.items.all() if items is None else items
        hirelings = self.hirelings.all() if hirelings is None else hirelings
        return rules_base.Sheet(
            state=self.rules_state(),
            items=tuple(item.to_rules() for item in items),
            hirelings=tuple(h.to_rules() for h in hirelings),
            name=self.name,
            settings=self.rule_settings() if settings is None else settings,
            table=self.table_conditions() if table is None else table,
        )

    def rules_state(self) -> dict:
        """The state in its system's shape now: loading upgraded it already, unless it was built in memory at an
        older version, or saved by a newer Lantern (RulesError with the sentence)."""
        system = SYSTEMS.get(self.system)
        if system is None or self.state_version == system.state_version:
            return self.state
        return system.upgrade_state(self.state, self.state_version)

    def rule_settings(self) -> dict:
        """The rule settings of this character's table (the system's defaults away from one).

        Reads ``self.campaign``: callers on hot paths load it with ``select_related("campaign")``.
        """
        campaign = self.campaign  # None away from a table, read without a query
        if campaign is None:
            system = SYSTEMS.get(self.system)
            return {} if system is None else system.settings_in_force(None)
        return campaign.settings_in_force(self.system)

    def table_stamp(self) -> str:
        """A short digest of what the table adds to this sheet (its rule settings and conditions, who rolls the
        dice): drawn regions are kept by it (characters.region_cache), and a page's region carries it
        (``data-table``), so a pushed region of the same version but another table state still lands."""
        if self.campaign is not None:
            return self.campaign.table_stamp(self.system)
        return stamp(self.rule_settings(), self.table_conditions())

    def table_conditions(self) -> dict:
        """The conditions at this character's table (Campaign.conditions; nothing away from one)."""
        campaign = self.campaign  # None away from a table, read without a query
        return {} if campaign is None else campaign.conditions_for(self.system)

    def checked_sheet(self) -> rules_base.Sheet:
        """The stored sheet, refused with a sentence if its numbers fail the rules: data written before a
        bound existed, or past the app, must end in a message rather than an error page or minutes of odds."""
        sheet = self.to_sheet()
        try:
            rules_base.check_sheet(SYSTEMS[self.system], sheet)
        except RulesError as problem:
            raise RulesError(f"{self.name}'s sheet holds numbers the rules can't read: {problem} Ask the GM.") from None
        return sheet


class Item(models.Model):
    class Kind(models.TextChoices):
        WEAPON = "weapon", "Weapon"
        ARMOUR = "armour", "Armour"
        SHIELD = "shield", "Shield"
        HELMET = "helmet", "Helmet"
        GEAR = "gear", "Gear"
        RATION = "ration", "Ration"
        LIGHT = "light", "Light"
        AMMO = "ammo", "Ammunition"
        SPELLBOOK = "spellbook", "Spell book or scroll"
        TREASURE = "treasure", "Treasure"
        COINS = "coins", "Coins"
        ANIMAL = "animal", "Animal"
        VEHICLE = "vehicle", "Vehicle"
        SERVICE = "service", "Service"
        OTHER = "other", "Other"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="items")
    catalogue_item = models.ForeignKey(
        "CatalogueItem", on_delete=models.SET_NULL, null=True, blank=True, related_name="held_items"
    )
    # The catalogue entry's version this copy's numbers came from: an edit to the entry since (a higher version)
    # is offered to its holders, never written over their sheets unasked (characters.services.catalogue_updates).
    catalogue_version = models.PositiveIntegerField(null=True, blank=True)
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.GEAR)
    # The rules' own bounds, stated on the fields: the database's integer range differs (SQLite takes 64 bits).
    slots = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(SLOTS_MAX)])
    quantity = models.PositiveIntegerField(default=1, validators=[MaxValueValidator(QUANTITY_MAX)])
    worn = models.BooleanField(default=False)
    # System numbers copied from the catalogue when added: damage die, protection/AV, bulky, hands...
    data = models.JSONField(default=dict, blank=True)
    # The shape ``data`` was saved in (GameSystem.item_version, rules/upgrades.py), as Character.state_version.
    data_version = models.PositiveSmallIntegerField(default=1)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Saved ``data`` is stored in its system's shape now, with that version (a newer one is never lowered)."""
        fields = kwargs.get("update_fields")
        if fields is None or "data" in fields:
            version = _shape_version(self.data_version, {s.item_version for s in SYSTEMS.values()})
            system = SYSTEMS.get(self.character.system) if version is None else None
            current = version if system is None else system.item_version
            if current is not None and self.data_version < current:
                self.data, self.data_version = self.current_data(), current
                if fields is not None:
                    kwargs["update_fields"] = {*fields, "data_version"}
        super().save(*args, **kwargs)

    def current_data(self) -> dict:
        """``data`` in its system's shape now: a row saved before a reshape is upgraded as it is read (RulesError:
        saved by a newer Lantern). Its character is read only when the systems' item versions differ from it."""
        if _shape_version(self.data_version, {s.item_version for s in SYSTEMS.values()}) is not None:
            return self.data
        system = SYSTEMS.get(self.character.system)
        if system is None or system.item_version == self.data_version:
            return self.data
        return system.upgrade_item_data(self.data, self.data_version)

    def to_rules(self) -> rules_base.Item:
        return rules_base.Item(
            id=self.pk,
            name=self.name,
            kind=self.kind,
            slots=self.slots,
            quantity=self.quantity,
            data=self.current_data(),
            worn=self.worn,
        )

    def clean(self) -> None:
        """Staff editing a character's items in the admin meet the system's bounds (a weapon needs a real die)."""
        rules = SYSTEMS.get(self.character.system) if self.character_id else None
        if rules is None:
            return
        try:
            rules.validate_item(self.to_rules())
        except RulesError as problem:
            raise ValidationError(str(problem)) from None


class Hireling(models.Model):
    class Kind(models.TextChoices):
        HIRELING = "hireling", "Hireling"
        RETAINER = "retainer", "Retainer"
        HELPER = "helper", "Helper"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="hirelings")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.HIRELING)
    state = models.JSONField(default=dict, blank=True)
    # The shape ``state`` was saved in (GameSystem.hireling_version, rules/upgrades.py), as Character.state_version.
    state_version = models.PositiveSmallIntegerField(default=1)
    wage = models.PositiveIntegerField(
        default=0, validators=[MaxValueValidator(WAGE_MAX)], help_text="Per day, in the system's smallest coin."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A saved ``state`` is stored in its system's shape now, with that version (a newer one is never lowered)."""
        fields = kwargs.get("update_fields")
        if fields is None or "state" in fields:
            version = _shape_version(self.state_version, {s.hireling_version for s in SYSTEMS.values()})
            system = SYSTEMS.get(self.character.system) if version is None else None
            current = version if system is None else system.hireling_version
            if current is not None and self.state_version < current:
                self.state, self.state_version = self.current_state(), current
                if fields is not None:
                    kwargs["update_fields"] = {*fields, "state_version"}
        super().save(*args, **kwargs)

    def current_state(self) -> dict:
        """``state`` in its system's shape now, as ``Item.current_data``."""
        if _shape_version(self.state_version, {s.hireling_version for s in SYSTEMS.values()}) is not None:
            return self.state
        system = SYSTEMS.get(self.character.system)
        if system is None or system.hireling_version == self.state_version:
            return self.state
        return system.upgrade_hireling_state(self.state, self.state_version)

    def to_rules(self) -> rules_base.Hireling:
        state = self.current_state()
        return rules_base.Hireling(id=self.pk, name=self.name, kind=self.kind, state=state, wage=self.wage)


def _shape_version(stored: int, versions: set[int]) -> int | None:
    """The version every system keeps this shape at, when they all agree and a row stored at ``stored`` needs no
    look at its own system (its character is not read): None when it must look."""
    return stored if versions == {stored} else None

    def clean(self) -> None:
        """Staff editing hirelings in the admin meet the system's bounds, as items do."""
        rules = SYSTEMS.get(self.character.system) if self.character_id else None
        if rules is None:
            return
        try:
            rules.validate_hireling(self.to_rules())
        except RulesError as problem:
            raise ValidationError(str(problem)) from None


class CatalogueItem(models.Model):
    """One row of a system's equipment table; staff edit these in the admin."""

    system = models.CharField(max_length=32, choices=system_choices, db_index=True)
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Item.Kind.choices, default=Item.Kind.GEAR)
    group = models.CharField(max_length=60, blank=True, help_text="The table it comes from.")
    # Bounded by us, not by the column: PostgreSQL's integer stops at 2^31, SQLite's at 2^63.
    cost = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[
            MaxValueValidator(COST_MAX, "No price is above %(limit_value)s of the smallest coin: no purse holds more.")
        ],
        help_text="In the system's smallest coin.",
    )
    slots = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(SLOTS_MAX)])
    data = models.JSONField(default=dict, blank=True)
    note = models.CharField(max_length=300, blank=True)
    available = models.BooleanField(default=True)
    # Raised by each edit in the admin that changes what a character's copy holds: copies remember the version
    # they were taken at (Item.catalogue_version), so the admin and the GM see who holds an older one.
    version = models.PositiveIntegerField(default=1, editable=False)
    # What each version changed, so an update to a copy writes only those fields (a player's own name for it, a
    # shield's current AC stay unless staff changed them): [{"version": 2, "changed": {"slots": [1, 2],
    # "data.damage": [6, 8]}}, ...]. Written by the admin (characters.services.catalogue_updates.record_edit).
    edits = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        ordering = ["system", "group", "name"]
        constraints = [models.UniqueConstraint(fields=["system", "name"], name="one_catalogue_row_per_name")]

    def __str__(self) -> str:
        return f"{self.name} ({SYSTEM_NAMES.get(self.system, self.system)})"

    def clean(self) -> None:
        """The system's own bounds (a damage die on its ladder, AV within its cap): the admin shows a refusal
        as a form error, since every character taking this item copies these numbers."""
        rules = SYSTEMS.get(self.system)
        if rules is None:
            return
        row = rules_base.Item(name=self.name, kind=self.kind, slots=self.slots, quantity=1, data=self.data)
        try:
            rules.validate_item(row)
        except RulesError as problem:
            raise ValidationError(str(problem)) from None


class Roll(models.Model):
    """A roll made on the server, or entered by hand (``by_hand``). Never deleted through the app; a correction
    voids it (it stays in every log, struck through), and its ``revision`` counts such later marks."""

    class Visibility(models.TextChoices):
        PUBLIC = "public", "Everyone at the table"
        GM = "gm", "GM only"
        PRIVATE = "private", "Only me"
        # The result only the GM sees: its roller's pages say it was rolled, never what it showed.
        BLIND = "blind", "Blind"

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, null=True, blank=True, related_name="rolls"
    )
    character = models.ForeignKey(Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls")
    roller = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="rolls")
    label = models.CharField(max_length=200)
    procedure = models.CharField(max_length=60)
    inputs = models.JSONField(default=dict)
    dice = models.JSONField(default=list)
    outcome = models.CharField(max_length=60)
    summary = models.CharField(max_length=500, blank=True)
    total = models.IntegerField(null=True, blank=True)
    odds = models.JSONField(default=dict, blank=True)  # {"pass": "3/4", "fail": "1/4"}
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    by_hand = models.BooleanField(default=False)  # the faces were typed from dice rolled at the table
    # A blind roll's change to its own sheet, held for the GM to apply ({"before": {...}, "after": {...}}, the
    # state keys it changed, as OfferedChange keeps them); held_applied once the GM has applied it.
    held = models.JSONField(default=dict, blank=True)
    held_applied = models.BooleanField(default=False)
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    void_reason = models.CharField(max_length=200, blank=True)
    undone = models.BooleanField(default=False)  # a change it made was reverted from the history
    # Bumped whenever its line changes after it was made (voided, undone, applied): a page keeps the newest line.
    revision = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["campaign", "-created_at"], name="roll_log_by_campaign"),
            # The sheet's "This character" log: one character's rolls, newest first, read in the log's order.
            models.Index(fields=["character", "-created_at", "-id"], name="roll_log_by_character"),
            # The roll rate check: one roller's rolls of the last minute, a range in this index.
            models.Index(fields=["roller", "created_at"], name="roll_rate_by_roller"),
        ]

    def __str__(self) -> str:
        return f"{self.label}: {self.outcome}"


class Change(models.Model):
    """Who changed what on a character, and each field before and after: the sheet's history and undo.

    ``before``/``after`` hold only what the write changed: ``"state"`` maps a field's path
    ("hp", "abilities.BOD.points") to its value (a path missing on one side did not exist there),
    ``"name"`` and ``"notes"`` the text, ``"items"`` the inventory rows removed, added or changed
    (each with its id). A revert is itself a change that names the change it reverts.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="changes")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    what = models.CharField(max_length=200)
    version = models.PositiveIntegerField()
    at = models.DateTimeField(auto_now_add=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    reverts = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="reverted_by")
    reason = models.CharField(max_length=200, blank=True)
    # The roll that made this change, if one did: voiding the roll reverts it, reverting it marks the roll.
    roll = models.ForeignKey("Roll", on_delete=models.SET_NULL, null=True, blank=True, related_name="changes")

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["character", "-at"], name="history_by_character")]

    def __str__(self) -> str:
        return self.what

    @property
    def revertible(self) -> bool:
        """Whether undoing it is a matter of putting values back (hirelings and creation are not)."""
        return bool(self.before or self.after) and set(self.before) | set(self.after) <= {
            "state",
            "name",
            "notes",
            "items",
        }


# Pending offers one character may hold: the sheet shows them all, and a roll that would offer one more to a
# character holding this many is refused before its dice are rolled (characters.services.character_roll).
OFFERS_PENDING_MAX = 20


class OfferedChange(models.Model):
    """What a roll would do to a character its roller may not edit, waiting for that sheet's owner or GM.

    A player's attack on another player's character never writes that sheet: the change is offered, and
    the owner or the GM applies it in one tap (or declines it). Only the state keys the roll changed are
    kept, with their values before and after, so applying it later cannot undo what happened meanwhile.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        APPLIED = "applied", "Applied"
        DECLINED = "declined", "Declined"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="offers")
    roll = models.ForeignKey(Roll, on_delete=models.SET_NULL, null=True, blank=True, related_name="offers")
    from_character = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="offers_made"
    )
    offered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    label = models.CharField(max_length=200)
    summary = models.CharField(max_length=500, blank=True)
    before = models.JSONField(default=dict)  # only the state keys the roll changed, as they were
    after = models.JSONField(default=dict)  # and as the roll would leave them (a missing key is removed)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["character", "status"], name="offers_by_character")]

    def __str__(self) -> str:
        return f"{self.label} → {self.character}"


class OfflineChange(models.Model):
    """A change a device kept while it had no connection, sent later (issue 29), remembered by the key the device
    gave it: sent twice (a retry after a lost answer), it is answered as the first time and applied once. A key
    is one change to one character: the same key sent for another character is another change (issue 35).

    ``outcome``: applied, conflict (someone else changed the same field since the version it was made against)
    or refused (the rules said no); ``message`` the sentence the player reads."""

    class Outcome(models.TextChoices):
        APPLIED = "applied", "Applied"
        CONFLICT = "conflict", "Conflict"
        REFUSED = "refused", "Refused"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    message = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "character", "key"], name="offline_change_once_per_character")
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.outcome}"
