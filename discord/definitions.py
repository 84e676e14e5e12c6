"""The slash commands as Discord registers them (one PUT of this list: docs/discord.md; ``manage.py
discord_commands`` prints it). Option types: 1 subcommand, 3 string, 4 integer, 5 boolean."""

from __future__ import annotations

from typing import Any

from rules.base import SHARED_CHECKS

SUB, TEXT, NUMBER, YES_NO = 1, 3, 4, 5
GUILD_ONLY = [0]  # contexts: in a server's channels (a linked channel names the campaign)


def _option(kind: int, name: str, description: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "description": description, **more}


PROCEDURE = _option(TEXT, "procedure", "The roll, as the sheet names it", required=True, autocomplete=True)
INPUTS = _option(TEXT, "inputs", "The roll's inputs: name=value, e.g. ability=BOD advantage=1", max_length=400)
CHARACTER = _option(TEXT, "character", "Which of your characters (when you have several)", autocomplete=True)
VISIBILITY = _option(
    TEXT,
    "visibility",
    "Who sees the result",
    choices=[
        {"name": "Everyone at the table", "value": "public"},
        {"name": "GM only", "value": "gm"},
        {"name": "Only me", "value": "private"},
        {"name": "Blind (the GM's)", "value": "blind"},
    ],
)


# The table's shared checks (rules.base.SHARED_CHECKS), offered as /request's choices at a mixed table (issue 42).
CHECKS = [{"name": words, "value": key} for key, words in SHARED_CHECKS.items()]


def commands() -> list[dict[str, Any]]:
    code = _option(TEXT, "code", "The code from Lantern's page", required=True, max_length=40)
    return [
        {
            "name": "lantern",
            "description": "Link Discord and Lantern",
            "contexts": GUILD_ONLY,
            "options": [
                _option(SUB, "link", "Link your Discord user to your Lantern account", options=[code]),
                _option(SUB, "unlink", "Unlink your Discord user from Lantern"),
                _option(SUB, "channel", "GM: this channel plays your campaign", options=[code]),
                _option(SUB, "unchannel", "GM: this channel no longer plays your campaign"),
            ],
        },
        {
            "name": "odds",
            "description": "The exact odds of a roll from your sheet (only you see them)",
            "contexts": GUILD_ONLY,
            "options": [PROCEDURE, INPUTS, CHARACTER],
        },
        {
            "name": "roll",
            "description": "Roll from your sheet on Lantern: the odds, then the result",
            "contexts": GUILD_ONLY,
            "options": [PROCEDURE, INPUTS, VISIBILITY, CHARACTER],
        },
        {
            "name": "sheet",
            "description": "Your character's vitals (only you see them)",
            "contexts": GUILD_ONLY,
            "options": [CHARACTER],
        },
        {
            "name": "request",
            "description": "GM: ask the table for a roll",
            "contexts": GUILD_ONLY,
            "options": [
                _option(TEXT, "procedure", "The roll (a mixed table: the home system's)", autocomplete=True),
                _option(
                    TEXT, "check", "A check every system at a mixed table answers with its own roll", choices=CHECKS
                ),
                _option(
                    TEXT,
                    "inputs",
                    "The inputs you fix: name=value; another system's roll: procedure@<system>=<roll>",
                    max_length=400,
                ),
                _option(YES_NO, "blind", "Only you see the results"),
                _option(NUMBER, "minutes", "How long it stays open (10 unless said)", min_value=1, max_value=240),
            ],
        },
    ]
