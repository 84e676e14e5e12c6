"""Templates: what only the developers should read never reaches a page."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def test_no_template_comment_leaks_onto_a_page():
    """Django's {# #} comments are one line only: a multi-line one would be shown to people."""
    for path in TEMPLATES.rglob("*.html"):
        for match in re.finditer(r"\{#(.*?)#\}", path.read_text(), re.S):
            assert "\n" not in match.group(1), f"{path}: use {{% comment %}} for multi-line comments"


def test_no_template_loads_assets_from_the_internet_or_inlines_scripts():
    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        assert not re.search(r'(src|href)="https?://[^"]*\.(js|css)', text), path
        assert not re.search(r"<script>[^<]", text), path
