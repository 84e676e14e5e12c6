"""Demo characters, one per playable system, made with the system's own creation rules."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from characters.services import character_create
from rules import SYSTEMS

if TYPE_CHECKING:  # a type hint only: characters sit below campaigns
    from campaigns.models import Campaign

# Who plays what in the demo: alice plays both Fells, bob plays Chaos & Conquest, and so on.
DEMO_OWNERS = {
    "fell-draft": ("alice", "Wren"),
    "fell-late": ("alice", "Hollis"),
    "chaos-conquest": ("bob", "Brannoc"),
    "fortunes-favor": ("bob", "Sable"),
    "grit-flesh": ("alice", "Tamsin"),
}


def demo_characters(campaign: Campaign, users: dict) -> None:

    if campaign.system not in SYSTEMS or campaign.system not in DEMO_OWNERS:
        return
    owner_name, name = DEMO_OWNERS[campaign.system]
    owner = users[owner_name]
    if campaign.characters.filter(owner=owner).exists():
        return
    # A fixed seed: the demo looks the same on every machine.
    character_create(
        owner=owner, system=campaign.system, choices={"name": name}, campaign=campaign, rng=random.Random(7)
    )


# The mixed table's heroes, by seat: names of their own, so each system's demo character above stays the only one.
MIXED_NAMES = ("Rook", "Ember", "Quill", "Moss", "Thorn")


def demo_mixed_characters(campaign: Campaign, users: dict) -> None:
    """A mixed demo table (issue 42): one character of each system it plays, by that system's demo owner."""
    for system, name in zip(campaign.systems, MIXED_NAMES, strict=False):
        if system not in SYSTEMS or system not in DEMO_OWNERS:
            continue
        owner_name = DEMO_OWNERS[system][0]
        owner = users[owner_name]
        if campaign.characters.filter(owner=owner, system=system).exists():
            continue
        character_create(owner=owner, system=system, choices={"name": name}, campaign=campaign, rng=random.Random(7))
