"""Create demo users, one campaign per game system and a mixed table of several. Safe to run again."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters.demo import demo_characters, demo_mixed_characters
from rules import SYSTEM_NAMES, SYSTEMS

DEMO_PASSWORD = "lantern"  # noqa: S105 - printed on screen on purpose: these are demo accounts
DEMO_PLAYERS = ("alice", "bob")
MIXED_NAME = "Demo: a mixed table"
MIXED_SIZE = 3  # systems at the mixed demo table: the first playable ones, the first its home


class Command(BaseCommand):
    help = "Create demo users gm, alice and bob (password 'lantern') and a campaign per game system."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Run even with DEBUG off.")

    def handle(self, *args, force: bool = False, **options) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("DEBUG is off: demo accounts with a known password are unsafe. Use --force.")
        with transaction.atomic():
            users = {name: self._user(name) for name in ("gm", *DEMO_PLAYERS)}
            for system, system_name in SYSTEM_NAMES.items():
                campaign = self._campaign(system, system_name, users)
                self._characters(campaign, users)
            self._mixed(users)
        self.stdout.write(self.style.SUCCESS("Demo ready. Log in as gm, alice or bob with the password: lantern"))

    def _user(self, username: str):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created or not user.check_password(DEMO_PASSWORD):
            user.set_password(DEMO_PASSWORD)
            user.save()
        return user

    def _campaign(self, system: str, system_name: str, users: dict) -> Campaign:
        name = f"Demo: {system_name}"
        campaign = Campaign.objects.filter(name=name, system=system).first()
        if campaign is None:
            campaign = Campaign.objects.create(name=name, system=system)
        Membership.objects.get_or_create(campaign=campaign, user=users["gm"], defaults={"role": Membership.Role.GM})
        for player in DEMO_PLAYERS:
            Membership.objects.get_or_create(campaign=campaign, user=users[player])
        return campaign

    def _mixed(self, users: dict) -> None:
        """One table of several systems, each character playing by its own (issue 42); none while fewer play."""
        playable = list(SYSTEMS)[:MIXED_SIZE]
        if len(playable) < 2:
            return
        campaign = Campaign.objects.filter(name=MIXED_NAME).first()
        if campaign is None:
            campaign = Campaign.objects.create(name=MIXED_NAME, system=playable[0], extra_systems=playable[1:])
        Membership.objects.get_or_create(campaign=campaign, user=users["gm"], defaults={"role": Membership.Role.GM})
        for player in DEMO_PLAYERS:
            Membership.objects.get_or_create(campaign=campaign, user=users[player])
        demo_mixed_characters(campaign, users)

    def _characters(self, campaign: Campaign, users: dict) -> None:
        """Each system's demo character arrives with the system's issue (see characters.demo)."""

        demo_characters(campaign, users)
