"""Print the slash commands' definitions as Discord's API takes them: the body of the one PUT that registers them
(docs/discord.md)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from discord.definitions import commands


class Command(BaseCommand):
    help = "Print the JSON of Lantern's Discord slash commands (PUT it to /applications/<id>/commands)."

    def handle(self, *args, **options) -> None:
        self.stdout.write(json.dumps(commands(), indent=2))
