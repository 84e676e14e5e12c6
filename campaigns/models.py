"""Campaigns and who sits at their table."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.urls import reverse

from characters.models import Item, stamp, system_choices  # noqa: F401 - the migrations name campaigns.models.system_choices
from rules import SYSTEM_NAMES, SYSTEMS
from rules.base import BOTH, PARTY_ACTS
from rules.validation import QUANTITY_MAX, SLOTS_MAX

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def new_invite_code() -> str:
    # 12 URL-safe characters ≈ 72 bits: unguessable, still short enough to read out at the table.
    return secrets.token_urlsafe(9)


class Campaign(models.Model):
    name = models.CharField(max_length=100)
    # The table's home system: its clock's units, the stash's coin, the NPC stat block offered first, and the
    # system a character is made in unless the player picks another the table allows.
    system = models.CharField(max_length=32, choices=system_choices)
    # The other systems characters at this table may belong to (issue 42): every roll, hit, light and slot of a
    # character runs through the character's own system; the table asks each system only through the registry.
    extra_systems = models.JSONField(default=list, blank=True)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # The table's clock: combat round (0 = not in combat) and elapsed game time in minutes.
    round = models.PositiveIntegerField(default=0)
    game_minutes = models.PositiveIntegerField(default=0)
    # Seconds past game_minutes, 0-59: a unit shorter than a minute (Fortune's Favor's 30-second round) counts them.
    game_seconds = models.PositiveSmallIntegerField(default=0)
    # The rule settings the GM changed from the system's defaults ({key: value}); GameSystem.settings_in_force
    # fills in the rest. Written only through campaigns.services.campaign_change_settings.
    rule_settings = models.JSONField(default=dict, blank=True)
    # The same for each of the extra systems: {system: {key: value}}; a setting of one system never reaches another.
    other_rule_settings = models.JSONField(default=dict, blank=True)
    # The party's situation as the rules read it (GameSystem.table_conditions: {"light": "darkness"}), given to
    # every sheet at this table as Sheet.table. Kept by campaigns.conditions.refresh_conditions when lights,
    # time or the party change, so reading a sheet costs no look at the other sheets.
    conditions = models.JSONField(default=dict, blank=True)
    # The conditions each extra system reads from the same party ({system: {...}}): each system judges the light by
    # its own rules (a C&C sheet counts light points, a Fell sheet whether anything burns).
    other_conditions = models.JSONField(default=dict, blank=True)
    # The GM says where the party is: in daylight its own lights make no difference (no light conditions);
    # in the dark (a dungeon, a night) the party's lit light sources set the light level.
    daylight = models.BooleanField(default=True)
    # What the clock's last move did (lights burnt out, rations eaten, checks rolled), for the GM's table.
    clock_note = models.CharField(max_length=1000, blank=True)
    # The session summary everyone at the table reads (the GM writes it).
    summary = models.TextField(blank=True, max_length=5000)

    class HandDice(models.TextChoices):
        """Who may type in dice rolled at the table (characters.services.character_roll enforces it)."""

        SERVER = "server", "Server dice only"
        PLAYERS = "players", "Players may enter their own dice"
        EVERYONE = "everyone", "Everyone rolls by hand (the GM too)"

    # Read at each roll, never stored into one: changing it leaves past rolls as they were (Roll.by_hand).
    hand_dice = models.CharField(max_length=8, choices=HandDice.choices, default=HandDice.SERVER)
    # Real-time play (issue 41): while ``realtime_since`` is set, game time runs with the wall clock at
    # ``realtime_rate`` game seconds per real second. It is the wall time at which the stored game time was the
    # time of play (campaigns.session.realtime moves it on with every step of game time it applies), so the time
    # now is worked out on each read and the ticker (manage.py clock_ticker) applies what fell due: nothing is
    # kept in a process, and a restarted server carries on where the row says. ``realtime_carry``: game seconds
    # already run towards the next step when the GM paused. ``realtime_by``: whose the steps' rolls are.
    realtime_since = models.DateTimeField(null=True, blank=True)
    realtime_rate = models.PositiveSmallIntegerField(default=1)
    realtime_carry = models.PositiveIntegerField(default=0)
    realtime_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members: models.ManyToManyField[User, Membership] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="campaigns"
    )

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("campaigns:detail", args=[self.pk])

    @property
    def system_name(self) -> str:
        """The table's systems in words: "Fell" or "Fell, Chaos & Conquest" at a mixed table."""
        return ", ".join(SYSTEM_NAMES.get(system, system) for system in self.systems)

    @property
    def home_system_name(self) -> str:
        return SYSTEM_NAMES.get(self.system, self.system)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system characters at this table may belong to, the home system first."""
        extra = [system for system in (self.extra_systems or ()) if system != self.system]
        return (self.system, *dict.fromkeys(extra))

    @property
    def campaign_systems(self) -> list[tuple[str, str]]:
        """(key, name) of every system at the table, the home system first: for links and pickers."""
        return [(system, SYSTEM_NAMES.get(system, system)) for system in self.systems]

    @property
    def is_mixed(self) -> bool:
        return len(self.systems) > 1

    def plays(self, system: str) -> bool:
        """Whether a character of ``system`` may sit at this table."""
        return system in self.systems

    def table_stamp(self, system: str | None = None) -> str:
        """A short digest of what this table adds to every sheet of ``system`` (the home system's by default) at
        it: its rule settings, its conditions and who rolls the dice (Character.table_stamp is this for a
        character at a table)."""
        return stamp(self.settings_in_force(system), self.conditions_for(system), self.hand_dice)

    def conditions_for(self, system: str | None = None) -> dict:
        """The table's conditions as ``system``'s sheets read them (campaigns.conditions keeps them)."""
        if system is None or system == self.system:
            return dict(self.conditions or {})
        return dict((self.other_conditions or {}).get(system, {}))

    def stored_settings(self, system: str | None = None) -> dict:
        """The rule settings the GM changed from ``system``'s defaults at this table."""
        if system is None or system == self.system:
            return dict(self.rule_settings or {})
        return dict((self.other_rule_settings or {}).get(system, {}))

    def allows_hand_dice(self, *, gm: bool) -> bool:
        """Whether this table lets a player (or, with ``gm``, its GM) type in dice rolled at the table."""
        if self.hand_dice == self.HandDice.EVERYONE:
            return True
        return self.hand_dice == self.HandDice.PLAYERS and not gm

    def settings_in_force(self, system: str | None = None) -> dict:
        """Every rule setting's value for ``system``'s sheets at this table (the home system by default; the
        system's defaults where the GM changed nothing)."""
        rules = SYSTEMS.get(system or self.system)
        return {} if rules is None else rules.settings_in_force(self.stored_settings(system))


class Countdown(models.Model):
    """A named progress clock the GM keeps ("Ritual completes", 6 segments): ticked by hand or every
    ``every_minutes`` of game time counted from game minute ``anchor_minutes``; ``shown``: what players see."""

    class Shown(models.TextChoices):
        ALL = "all", "Players see it"
        NAME_HIDDEN = "name_hidden", "Players see its progress, not its name"
        PROGRESS_HIDDEN = "progress_hidden", "Players see its name, not its progress"
        GM = "gm", "Only the GM sees it"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="countdowns")
    name = models.CharField(max_length=80)
    segments = models.PositiveSmallIntegerField()
    filled = models.PositiveSmallIntegerField(default=0)
    shown = models.CharField(max_length=16, choices=Shown.choices, default=Shown.ALL)
    every_minutes = models.PositiveIntegerField(null=True, blank=True)
    anchor_minutes = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.CheckConstraint(condition=models.Q(filled__lte=models.F("segments")), name="countdown_filled_fits"),
            models.CheckConstraint(condition=models.Q(segments__gte=1), name="countdown_has_segments"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.filled}/{self.segments}"

    @property
    def done(self) -> bool:
        return self.filled >= self.segments

    def players_see(self) -> bool:
        """Players know it exists."""
        return self.shown != self.Shown.GM

    def players_see_progress(self) -> bool:
        return self.shown in (self.Shown.ALL, self.Shown.NAME_HIDDEN)

    def players_see_name(self) -> bool:
        return self.shown in (self.Shown.ALL, self.Shown.PROGRESS_HIDDEN)


class RuleSettingChange(models.Model):
    """One rule setting changed by the GM: the table's record of when the rules it plays by moved."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="setting_changes")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    key = models.CharField(max_length=64)
    label = models.CharField(max_length=100)  # the setting's name when it changed, as people read it
    before = models.CharField(max_length=300)
    after = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.label}: {self.before} → {self.after}"


class Membership(models.Model):
    """A seat at the table. The owner's seat (Role.GM, one per campaign) and the co-GMs the owner names (issue 42)
    both run the table: ``is_gm``; only the owner names co-GMs and hands the table over: ``is_owner``."""

    class Role(models.TextChoices):
        GM = "gm", "GM"
        PLAYER = "player", "Player"
        CO_GM = "cogm", "Co-GM"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The owner first, then co-GMs, then players by arrival.
        ordering = [
            models.Case(
                models.When(role="gm", then=0),
                models.When(role="cogm", then=1),
                default=2,
                output_field=models.IntegerField(),
            ),
            "joined_at",
            "pk",
        ]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
            models.UniqueConstraint(fields=["campaign"], condition=models.Q(role="gm"), name="one_gm_per_campaign"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()}) in {self.campaign}"

    @property
    def is_gm(self) -> bool:
        """Whether this seat runs the table: the owner or a co-GM."""
        return self.role in GM_ROLES

    @property
    def is_owner(self) -> bool:
        """The owner's seat: names co-GMs, hands the table over, cannot leave it without doing so."""
        return self.role == self.Role.GM


# The roles that run a table: every "is this user a GM here?" query filters on these (role__in=GM_ROLES).
GM_ROLES = (Membership.Role.GM, Membership.Role.CO_GM)


# --- running a session from the GM's table (issue 16) ------------------------------------------------------


@dataclass(frozen=True)
class AskedRoll:
    """What a roll request asks of one system's characters: the procedure, the GM's inputs, their words."""

    procedure: str
    inputs: dict[str, Any]
    label: str
    shown: str


class RollRequest(models.Model):
    """The GM asks some characters for one roll: the procedure and the inputs the GM set are fixed."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CANCELLED = "cancelled", "Cancelled"
        CLOSED = "closed", "Closed"  # a group check the GM closed: who had not rolled is left out of its outcome

    class Seen(models.TextChoices):
        """Who sees a group check's outcome line in the log (characters.Roll.Visibility's words)."""

        PUBLIC = "public", "Everyone"
        GM = "gm", "GM only"
        BLIND = "blind", "Blind: only you see the results"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="roll_requests")
    procedure = models.CharField(max_length=60)
    label = models.CharField(max_length=200)  # the procedure's name when asked
    inputs = models.JSONField(default=dict, blank=True)  # the inputs the GM fixed, as the rules cleaned them
    shown = models.CharField(max_length=300, blank=True)  # those inputs in words ("Attribute DEX")
    blind = models.BooleanField(default=False)  # answered as a blind roll: only the GM sees the results
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    group_outcome = models.CharField(max_length=60, blank=True)
    group_summary = models.CharField(max_length=300, blank=True)
    # A group check (issue 40): the rule the GM picked (rules.group: "system", "all", "any", "half", "best"; blank for
    # a plain request), who sees its outcome, the group's exact odds as shown when asked ([[key, "n/d"], ...], in
    # order: jsonb keeps no key order) and its one line in the roll log once it is decided.
    rule = models.CharField(max_length=10, blank=True)
    group_seen = models.CharField(max_length=8, choices=Seen.choices, default=Seen.PUBLIC)
    group_odds = models.JSONField(default=list, blank=True)
    group_roll = models.ForeignKey(
        "characters.Roll", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # At a mixed table (issue 42) each system's characters roll their own system's roll: {system: {"procedure",
    # "inputs", "label", "shown"}}; ``shared_check`` the shared check asked (rules.base.SHARED_CHECKS; blank: picked per
    # system). Empty (a table of one system, and every request made before): ``procedure``/``inputs`` for all.
    per_system = models.JSONField(default=dict, blank=True)
    shared_check = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["campaign", "status"], name="requests_by_campaign")]

    def __str__(self) -> str:
        return self.label

    def is_open(self, now) -> bool:
        return self.status == self.Status.OPEN and now < self.expires_at

    def asked_of(self, system_id: str) -> AskedRoll:
        """The roll this request asks of a character of ``system_id``: its own system's at a mixed table, else the
        request's one roll (every request made before mixed tables, whose characters all play the home system)."""
        row = (self.per_system or {}).get(system_id)
        if isinstance(row, dict) and row.get("procedure"):
            inputs = row.get("inputs")
            return AskedRoll(
                str(row["procedure"]),
                dict(inputs) if isinstance(inputs, dict) else {},
                str(row.get("label") or self.label),
                str(row.get("shown") or ""),
            )
        return AskedRoll(self.procedure, dict(self.inputs or {}), self.label, self.shown)

    def group_hidden(self, *, gm: bool) -> bool:
        """Whether this viewer is kept from the group's outcome (a blind or GM-only group check, to a player)."""
        return not gm and (self.blind or self.group_seen != self.Seen.PUBLIC)


class RollRequestAnswer(models.Model):
    """One character's place in a roll request: pending until its player rolls, then the roll and outcome."""

    request = models.ForeignKey(RollRequest, on_delete=models.CASCADE, related_name="answers")
    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="roll_requests")
    roll = models.ForeignKey("characters.Roll", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    outcome = models.CharField(max_length=60, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    succeeded = models.BooleanField(null=True, blank=True)  # whether the outcome is a success, by the roll's odds
    skipped = models.BooleanField(default=False)  # the GM left an absent player out of a group check
    for_player = models.BooleanField(default=False)  # the GM rolled it on the player's behalf

    class Meta:
        ordering = ["request", "character__name", "pk"]
        constraints = [models.UniqueConstraint(fields=["request", "character"], name="one_answer_per_character")]

    def __str__(self) -> str:
        return f"{self.character} for {self.request}"

    def asked(self) -> AskedRoll:
        """The roll its character's own system is asked (a mixed table's request asks each system its own)."""
        return self.request.asked_of(self.character.system)


class Encounter(models.Model):
    """A fight at the table: its rounds, run in the system's order; its NPCs are the Npc rows pointing here."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="encounters")
    name = models.CharField(max_length=100)
    round = models.PositiveIntegerField(default=1)
    active = models.BooleanField(default=True)
    order = models.JSONField(default=list, blank=True)  # this round's steps, in the system's words
    order_summary = models.CharField(max_length=300, blank=True)
    # Who acts at each step (rules.base.CombatOrder.sides: "party", "enemies", "both", "world"), and the step whose
    # turn it is now (an index into ``order``; the GM moves it on). Empty for a fight started before turns existed.
    sides = models.JSONField(default=list, blank=True)
    turn = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    # What hit each PC last in this fight, for their sheet: {"<character id>": "Goblin 1 hit you for 5"}.
    hits = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign"], condition=models.Q(active=True), name="one_fight_at_a_time")
        ]

    def __str__(self) -> str:
        return self.name

    def steps(self) -> list[Step]:
        """This round's order as the strip and the sheets show it: each step's words, who acts, whether it is now."""
        sides = self.sides if len(self.sides) == len(self.order) else [""] * len(self.order)
        pairs = zip(self.order, sides, strict=True)
        return [Step(str(words), str(side), i == self.turn) for i, (words, side) in enumerate(pairs)]

    @property
    def step_now(self) -> Step | None:
        """The step whose turn it is (None: a fight that kept no sides, so nobody's turn is known)."""
        now = [step for step in self.steps() if step.now and step.side]
        return now[0] if now else None

    @property
    def step_after(self) -> Step | None:
        """The step after the one whose turn it is, in this round (None: it is the round's last)."""
        steps = self.steps()
        return steps[self.turn + 1] if self.step_now is not None and self.turn + 1 < len(steps) else None


@dataclass(frozen=True)
class Step:
    """One step of a round's order (Encounter.steps): its words, who acts (rules.base.SIDES), whether it is now."""

    words: str
    side: str
    now: bool

    @property
    def party_acts(self) -> bool:
        """The players act at this step: alone, or with the enemies at once."""
        return self.side in PARTY_ACTS

    @property
    def both(self) -> bool:
        return self.side == BOTH


class Npc(models.Model):
    """An NPC or monster: in an encounter, or (encounter empty) on the campaign's saved list to add from."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="npcs")
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, null=True, blank=True, related_name="npcs")
    name = models.CharField(max_length=100)
    # Whose stat block it carries at a mixed table (blank: the table's home system, Campaign.system).
    system = models.CharField(max_length=32, blank=True, default="")
    stats = models.JSONField(default=dict)  # the system's stat block (GameSystem.npc_fields), as it is now
    start = models.JSONField(default=dict)  # and as it entered the fight
    statuses = models.JSONField(default=list, blank=True)  # [{"name": "Stunned", "rounds": 2}]
    defeated = models.BooleanField(default=False)
    prompt = models.CharField(max_length=300, blank=True)  # what the rules ask of the GM now (a morale check)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.name

    def system_of(self, campaign: Campaign) -> str:
        """The system whose stat block and attacks this NPC uses (its own at a mixed table, else the table's)."""
        return self.system or campaign.system


class GmNote(models.Model):
    """The GM's private note on the campaign (character empty) or on one character: never shown to players."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="gm_notes")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, null=True, blank=True, related_name="gm_notes"
    )
    text = models.TextField(max_length=5000, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "character"], name="one_note_per_character"),
            models.UniqueConstraint(
                fields=["campaign"], condition=models.Q(character__isnull=True), name="one_campaign_note"
            ),
        ]

    def __str__(self) -> str:
        return f"GM note in {self.campaign}"


class FightHit(models.Model):
    """One hit landed in a fight, kept for the GM's Undo at the table: an NPC's on a PC (the change it made to
    the sheet, reverted through the sheet's history) or a PC's on an NPC (the NPC's stat block before and after,
    which the Undo gives back)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="fight_hits")
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="fight_hits")
    roll = models.ForeignKey("characters.Roll", on_delete=models.SET_NULL, null=True, related_name="+")
    words = models.CharField(max_length=200)  # "Wren hit Goblin 1 for 5"
    # A PC's hit on an NPC: the NPC, and what the hit changed in its stat block.
    npc = models.ForeignKey(Npc, on_delete=models.CASCADE, null=True, blank=True, related_name="hits_taken")
    npc_before = models.JSONField(default=dict, blank=True)
    npc_after = models.JSONField(default=dict, blank=True)
    defeated_before = models.BooleanField(default=False)
    # An NPC's hit on a PC: the change it made to the sheet.
    change = models.ForeignKey("characters.Change", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-pk"]

    def __str__(self) -> str:
        return self.words


# --- the session chronicle (issue 40) ------------------------------------------------------------------------


class PlaySession(models.Model):
    """One evening of play: the GM starts and ends it; the journal's entries between its two positions are what
    happened in it, read by campaigns.chronicle for each reader (nothing rendered is stored here)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="play_sessions")
    number = models.PositiveIntegerField()  # 1, 2, 3… per campaign: the URL's and the reader's name for it
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    # Who runs it (issue 42): any of the table's GMs, the one who started it unless they named another.
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # The journal's head when it started (its entries come after) and when it ended (up to and including).
    start_cursor = models.BigIntegerField(default=0)
    end_cursor = models.BigIntegerField(null=True, blank=True)
    # The game clock then, in minutes: the chronicle says how much time passed.
    start_minutes = models.PositiveIntegerField(default=0)
    end_minutes = models.PositiveIntegerField(null=True, blank=True)
    # Who was there: [{"character": id, "name": …, "user": id, "player": …}], the roster's characters the GM marked
    # present when it started (the whole party when none were picked).
    present = models.JSONField(default=list, blank=True)
    summary = models.TextField(blank=True, max_length=5000)  # the GM's words; every member reads them

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="one_session_number"),
            models.UniqueConstraint(
                fields=["campaign"], condition=models.Q(ended_at__isnull=True), name="one_open_session"
            ),
        ]

    def __str__(self) -> str:
        return f"Session {self.number} of {self.campaign_id}"

    def get_absolute_url(self) -> str:
        return reverse("campaigns:chronicle", args=[self.campaign_id, self.number])

    @property
    def is_open(self) -> bool:
        return self.ended_at is None


class ChronicleLine(models.Model):
    """A player's own line on one entry of a session's chronicle: shown to whoever may see that entry."""

    session = models.ForeignKey(PlaySession, on_delete=models.CASCADE, related_name="lines")
    entry = models.CharField(max_length=40)  # the entry's key in the chronicle ("roll-55", "fight-3", "summary")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["session", "entry"], name="chronicle_lines_by_entry")]

    def __str__(self) -> str:
        return self.text


# --- the party's stash (issue 41) ----------------------------------------------------------------------------------


class Stash(models.Model):
    """The party's shared stash: its coins (in the system's smallest coin) and, through ``items``, what lies in it.

    One row per campaign, made when first used; every stash write locks it (characters.locking, step 4: after the
    characters the write changes), so two takers queue one behind the other."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="stash")
    coins = models.PositiveBigIntegerField(default=0)
    version = models.PositiveIntegerField(default=1)

    def __str__(self) -> str:
        return f"Stash of {self.campaign}"


class StashItem(models.Model):
    """An item in the party's stash: the fields a sheet's item has (characters.models.Item), no holder."""

    stash = models.ForeignKey(Stash, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Item.Kind.choices, default=Item.Kind.GEAR)
    slots = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(SLOTS_MAX)])
    quantity = models.PositiveIntegerField(default=1, validators=[MaxValueValidator(QUANTITY_MAX)])
    data = models.JSONField(default=dict, blank=True)
    catalogue_item = models.ForeignKey(
        "characters.CatalogueItem", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    catalogue_version = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class StashEntry(models.Model):
    """The stash's history: who moved what in or out, each side's numbers before and after, and the character's
    own history entry when a sheet was the other side (reverting either reverts both).

    ``before``/``after``: ``"items"`` the stash rows as they were and became (snapshots with their ids),
    ``"coins"`` the stash's coins; ``moved`` what went where, for the line a person reads."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="stash_entries")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    what = models.CharField(max_length=300)
    at = models.DateTimeField(auto_now_add=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    character = models.ForeignKey(
        "characters.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    change = models.OneToOneField(
        "characters.Change", on_delete=models.SET_NULL, null=True, blank=True, related_name="stash_entry"
    )
    # A coin split changes several sheets: each sheet's history entry, by character id ({"12": change id}).
    changes = models.JSONField(default=dict, blank=True)
    reverts = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="reverted_by")
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["campaign", "-at"], name="stash_history_by_campaign")]

    def __str__(self) -> str:
        return self.what
