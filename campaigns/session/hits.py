"""Hits in a fight: a PC's attack landing on an NPC of the running encounter, and the GM's Undo of a hit (an
NPC's on a PC, a PC's on an NPC) from the table.

What a PC's roll does to an NPC is the rules' (``GameSystem.npc_target_procedures``, ``npc_target_params``,
``hits_on_npc``, then ``npc_damage``, as for damage typed at the table); the roll itself is the sheet's own
(``characters.services.character_roll``), so its odds, log line and sheet changes are those of any roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaigns.models import GM_ROLES, Campaign, Encounter, FightHit, Membership, Npc
from campaigns.services import CampaignError, TableWritten, written
from campaigns.session.common import lock_campaign, npc_rules, table_system
from campaigns.session.encounters import harm_npc, publish_fight
from characters import locking
from characters.models import Change, Character, Roll
from characters.selectors import characters_editable_by, rolls_visible_to
from characters.services import change_revert as sheet_change_revert
from characters.services import character_roll
from characters.services import roll_void as characters_roll_void
from characters.services.rolls import bump_roll, roll_lock_ids
from characters.services.writes import Written
from rules import base as rules_base
from rules import dice, system_for
from rules.dice import RandomSource

UNDO_REASON = "Undone from the GM's table"


@dataclass(frozen=True)
class PcAttacked:
    """The row ``pc_attack`` returns: the roll as the sheet's write returns it, the NPC as the hit left it,
    the damage dealt, and the hit kept for the Undo (None: nothing landed)."""

    written: Written
    npc: Npc
    dealt: int
    hit: FightHit | None


def target_params(character: Character, procedure: str, npc_id: int, params: Mapping[str, Any]) -> dict[str, Any]:
    """The roll's inputs with those the NPC target sets (its armour) in place, for the odds and the roll;
    CampaignError with the sentence to show when the NPC is no target of this roll."""
    campaign = character.campaign
    system = table_system(campaign) if campaign is not None else None
    system = system_for(character.system) if system is not None else None  # the attack is the sheet's own
    if campaign is None or system is None or procedure not in system.npc_target_procedures():
        raise CampaignError("That roll can't target an NPC.")
    npc = Npc.objects.filter(pk=npc_id, campaign=campaign, encounter__active=True).first()
    if npc is None:
        raise CampaignError("That NPC is not in this table's running fight: pick another target.")
    return _with_target(system, procedure, npc, params, _stats_seen(campaign, npc, character))


def _stats_seen(campaign: Campaign, npc: Npc, character: Character) -> Mapping[str, Any]:
    """The NPC as the attacker's rules read it: its stat block when it is of their system, else their stand-in
    (GameSystem.npc_stand_in: no armour there; the NPC's own rules take its armour off what lands)."""
    if npc.system_of(campaign) == character.system:
        return npc.stats
    return system_for(character.system).npc_stand_in()


def _with_target(
    system, procedure: str, npc: Npc, params: Mapping[str, Any], stats: Mapping[str, Any]
) -> dict[str, Any]:
    if npc.defeated:
        raise CampaignError(f"{npc.name} is already down: pick another target.")
    fixed = system.npc_target_params(procedure, stats)
    for key, value in fixed.items():
        if value is None and params.get(key) not in (None, ""):  # a character named as the target too
            raise CampaignError(f"Pick one target: a character or {npc.name}.")
    return {**params, **{k: v for k, v in fixed.items() if v is not None}}


@transaction.atomic
def pc_attack(
    *,
    character_id: int,
    procedure: str,
    params: Mapping[str, Any],
    npc_id: int,
    by: User,
    visibility: str = str(Roll.Visibility.PUBLIC),
    expected_version: int | None = None,
    hand: str | None = None,
    rng: RandomSource | None = None,
) -> TableWritten:
    """A PC's roll (attack) on an NPC of the running fight: rolled against the NPC (its armour set by the
    rules), and what hits taken off the NPC by the rules' ``npc_damage``. The log line names attacker, target
    and damage; the GM's table and every sheet's fight are told. The row is a ``PcAttacked``.

    Only the character's table's running fight: another table's NPC, one gone or down, is refused with a
    sentence and nothing changes."""
    found = Character.objects.filter(pk=character_id).values_list("campaign_id").first()
    if found is None:
        raise locking.Gone("That character is gone.")
    if found[0] is None:
        raise CampaignError("Only a character at a table attacks the NPCs of its fight.")
    campaign = lock_campaign(found[0], roller=by)  # the app's one order: roller, campaign, characters, NPCs
    table_system(campaign)
    locked = locking.lock_characters(roll_lock_ids(character_id, procedure, params))
    character = locked.get(character_id)
    if character is None:
        raise locking.Gone("That character is gone.")
    system = system_for(character.system)  # the attack is the sheet's own; the NPC takes it by its own rules
    npc = Npc.objects.select_for_update().filter(pk=npc_id, campaign=campaign, encounter__active=True).first()
    if npc is None or procedure not in system.npc_target_procedures():
        raise CampaignError(
            "That NPC is not in this table's running fight: pick another target."
            if procedure in system.npc_target_procedures()
            else "That roll can't target an NPC."
        )
    if visibility == Roll.Visibility.BLIND:
        raise CampaignError("An attack on an NPC changes the fight: it can't be blind.")
    aimed = _with_target(system, procedure, npc, params, _stats_seen(campaign, npc, character))
    own = npc_rules(campaign, npc)
    # a hit of another system's rules took no armour off (the stand-in has none): the NPC's own rules do
    kin = own is system
    rng = rng or dice.system_random()
    before, defeated_before = dict(npc.stats), npc.defeated
    harms: list[rules_base.NpcHarm] = []

    def on_npc(result: rules_base.RollResult) -> rules_base.RollResult:
        """The NPC's harm worked out from what hit (pure: saved once the roll is stored), in the log line."""
        stats = dict(npc.stats)
        for hit in system.hits_on_npc(result):
            harm = own.npc_damage(stats, npc.start, max(0, hit.amount), hit.ignore_armour and kin, rng)
            harms.append(harm)
            stats = dict(harm.stats)
        dealt = sum(h.dealt for h in harms)
        words = f"{dealt} damage" if harms else "no hit"
        label = f"{character.name} attacks {npc.name}: {result.label}, {words}"
        told = " ".join(h.words for h in harms)
        return replace(result, label=label[:200], summary=f"{result.summary} {npc.name}: {told}".strip()[:500])

    done = character_roll(
        character_id=character.pk,
        procedure=procedure,
        params=aimed,
        by=by,
        visibility=visibility,
        expected_version=expected_version,
        hand=hand,
        rng=rng,
        shape=on_npc,
    )
    for harm in harms:
        harm_npc(campaign, own, npc, harm, by=by, visibility=visibility)
    dealt = sum(h.dealt for h in harms)
    hit = None
    encounter_id = npc.encounter_id
    assert encounter_id is not None  # picked from the running fight above
    if harms:
        npc.save(update_fields=["stats", "defeated", "prompt"])
        if npc.stats != before or npc.defeated != defeated_before:
            hit = FightHit.objects.create(
                campaign=campaign,
                encounter_id=encounter_id,
                roll=done.row,
                words=f"{character.name} hit {npc.name} for {dealt}"[:200],
                npc=npc,
                npc_before=before,
                npc_after=npc.stats,
                defeated_before=defeated_before,
            )
    if harms:  # their sheet's fight says what it did
        down = f"; {npc.name} is down" if npc.defeated and not defeated_before else ""
        _remember(encounter_id, f"{character.pk}:dealt", f"You hit {npc.name} for {dealt}{down}")
    return written(campaign, ("rolls", *publish_fight(campaign.pk, by)), PcAttacked(done, npc, dealt, hit))


def _remember(encounter_id: int, key: str, words: str | None) -> None:
    """A line of a sheet's fight (Encounter.hits): set, or gone (None)."""
    encounter = Encounter.objects.select_for_update().get(pk=encounter_id)
    hits = {k: v for k, v in encounter.hits.items() if k != key}
    encounter.hits = hits if words is None else {**hits, key: words[:200]}
    encounter.save(update_fields=["hits"])


def undoable_hits(campaign: Campaign, encounter_id: int, limit: int = 8) -> list[FightHit]:
    """The fight's latest hits the GM may still undo, newest first: one query."""
    hits = FightHit.objects.filter(campaign=campaign, encounter_id=encounter_id, undone_at__isnull=True)
    return list(hits.order_by("-pk")[:limit])


@transaction.atomic
def hit_undo(*, campaign_id: int, hit_id: int, by: User) -> TableWritten:
    """Undo one hit of a fight from the table: an NPC's hit on a PC is reverted through the sheet's history
    (its track back, logged there, the roll marked undone); a PC's hit on an NPC gives the NPC back what the hit
    took. The GM undoes any; a player only a hit on their own character (as they may revert its changes).
    Refused with a sentence a second time, or when what the hit changed moved on since."""
    found = FightHit.objects.filter(pk=hit_id, campaign_id=campaign_id).values_list("character_id").first()
    if found is None:
        raise CampaignError("That hit is not in this table's fights.")
    row = found[0]  # the character an NPC hit, or None: a PC's hit on an NPC
    gm = Membership.objects.filter(campaign_id=campaign_id, user=by, role__in=GM_ROLES).exists()
    if not gm and (row is None or not characters_editable_by(by).filter(pk=row).exists()):
        raise CampaignError("Only the GM undoes that hit.")
    campaign = lock_campaign(campaign_id, roller=by)
    table_system(campaign)
    if row is not None:
        locking.lock_characters([row])
    hit = FightHit.objects.select_for_update().get(pk=hit_id)
    if hit.undone_at is not None:
        raise CampaignError(f"“{hit.words}” was undone already.")
    regions: tuple[str, ...] = ()
    if hit.character_id is not None:
        if hit.change_id is None or Change.objects.filter(reverts_id=hit.change_id).exists():
            raise CampaignError(f"“{hit.words}” was undone already, on the sheet.")
        sheet_change_revert(character_id=hit.character_id, change_id=hit.change_id, by=by, reason=UNDO_REASON)
        _remember(hit.encounter_id, str(hit.character_id), None)
    else:
        _npc_hit_back(campaign, hit, by)
        roll = Roll.objects.select_for_update().filter(pk=hit.roll_id or 0, undone=False).first()
        if roll is not None:  # its line in every log says so
            roll.undone = True
            bump_roll(roll, "undone")
            regions += ("rolls",)
        return written(campaign, regions + publish_fight(campaign.pk, by), hit)
    hit.undone_at, hit.undone_by = timezone.now(), by
    hit.save(update_fields=["undone_at", "undone_by"])
    return written(campaign, regions + publish_fight(campaign.pk, by), hit)


def _npc_hit_back(campaign: Campaign, hit: FightHit, by: User) -> str:
    """A PC's hit on an NPC taken back (the hit locked, its NPC locked here, after the characters): the NPC gets
    back what it took, the hit leaves the Undo list, its attacker's sheet no longer tells it. What the NPC has
    now, in words ("Goblin 1: Stamina 4")."""
    assert hit.npc_id is not None  # a hit is on a character or on an NPC
    npc = Npc.objects.select_for_update().get(pk=hit.npc_id)
    system = npc_rules(campaign, npc)  # the NPC's own stat block: its bounds, its track
    _give_back(system, npc, hit)
    hit.undone_at, hit.undone_by = timezone.now(), by
    hit.save(update_fields=["undone_at", "undone_by"])
    attacker = Roll.objects.filter(pk=hit.roll_id or 0).values_list("character_id", flat=True).first()
    if attacker is not None:
        _remember(hit.encounter_id, f"{attacker}:dealt", None)
    track = system.npc_fields()[0]
    return f"{npc.name} has {npc.stats.get(track.name, 0)} {track.label} again"


def pending_npc_hits(roll_id: int) -> list[FightHit]:
    """A roll's hits on NPCs not yet taken back, oldest first (what voiding or undoing it gives back)."""
    return list(FightHit.objects.filter(roll_id=roll_id, npc__isnull=False, undone_at__isnull=True).order_by("pk"))


def void_preview(roll: Roll) -> list[str]:
    """What voiding this roll does beyond its own sheet, in a sentence each, for its void page: the NPCs its hits
    get back to, and the hits already taken back at the table (they stay as they are)."""
    hits = FightHit.objects.filter(roll_id=roll.pk, npc__isnull=False).select_related("npc").order_by("pk")
    words = []
    for hit in hits:
        assert hit.npc is not None
        if hit.undone_at is not None:
            words.append(f"{hit.npc.name}: that hit was undone at the table already, so it stays as it is now.")
        else:
            words.append(f"{hit.npc.name} gets back what the hit took (“{hit.words}”).")
    return words


@transaction.atomic
def roll_void(*, roll_id: int, by: User, reason: str) -> tuple[Roll, list[str]]:
    """Void a roll as ``characters.services.roll_void`` does (struck from the log, what it changed on sheets put
    back, its waiting offers declined) and give back what its hits took from NPCs of a fight: a void puts back
    all the roll did. The roll and a sentence per NPC given back.

    The app's one lock order: the roller and the campaign (when the roll hit an NPC), the characters (in the
    sheet's void), then the hits and their NPCs."""
    found = rolls_visible_to(by).filter(pk=roll_id).values_list("campaign_id", flat=True).first()
    campaign = None
    if found is not None and pending_npc_hits(roll_id):
        campaign = lock_campaign(found, roller=by)
    roll = characters_roll_void(roll_id=roll_id, by=by, reason=reason)
    return roll, _hits_back(campaign, roll_id, by)


@transaction.atomic
def change_revert(*, character_id: int, change_id: int, by: User, reason: str, expected_version: int | None = None):
    """Revert a change from the sheet's history (``characters.services.change_revert``); when a roll made it
    and that roll hit NPCs of a fight, they get back what it took too, as the roll's Undo at the table would.
    What the sheet's revert wrote, and a sentence per NPC given back."""
    roll_id = Change.objects.filter(pk=change_id, character_id=character_id).values_list("roll_id", flat=True).first()
    campaign = None
    if roll_id and pending_npc_hits(roll_id):
        found = Character.objects.filter(pk=character_id).values_list("campaign_id", flat=True).first()
        if found is not None and characters_editable_by(by).filter(pk=character_id).exists():
            campaign = lock_campaign(found, roller=by)
    done = sheet_change_revert(
        character_id=character_id, change_id=change_id, by=by, reason=reason, expected_version=expected_version
    )
    return done, _hits_back(campaign, roll_id, by) if roll_id else []


def _hits_back(campaign: Campaign | None, roll_id: int, by: User) -> list[str]:
    if campaign is None:
        return []
    table_system(campaign)
    hits = list(FightHit.objects.select_for_update().filter(pk__in=[h.pk for h in pending_npc_hits(roll_id)]))
    words = [_npc_hit_back(campaign, hit, by) for hit in sorted(hits, key=lambda h: h.pk)]
    if words:
        publish_fight(campaign.pk, by)
    return words


def _give_back(system, npc: Npc, hit: FightHit) -> None:
    """What the hit took, back on the NPC: each number it lowered raised by as much (later hits stay), within
    the stat block's bounds; a choice it changed (a die stepped down) back when nothing changed it since; up
    again if the hit put it down and its track is above 0 once more."""
    fields = {p.name: p for p in system.npc_fields()}
    stats = dict(npc.stats)
    for key, was in hit.npc_before.items():
        after = hit.npc_after.get(key)
        if was == after or key not in fields:
            continue
        param = fields[key]
        if param.kind == "int" and isinstance(was, int) and isinstance(after, int):
            value = int(stats.get(key, after)) + was - after
            low = param.minimum if param.minimum is not None else value
            high = param.maximum if param.maximum is not None else value
            stats[key] = min(max(value, low), high)
        elif stats.get(key) == after:
            stats[key] = was
    track = system.npc_fields()[0].name
    npc.stats = stats
    if npc.defeated and not hit.defeated_before and int(stats.get(track, 0) or 0) > 0:
        npc.defeated = False
    npc.prompt = f"Undone: {hit.words}."[:300]
    npc.save(update_fields=["stats", "defeated", "prompt"])
