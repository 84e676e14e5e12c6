"""Where a system's look lives: ``templates/systems/<id>/<part>.html``, with defaults beside it.

Parts: ``sheet`` (the sheet's "details" region), ``hireling`` (one line in the hirelings region),
``card`` (extra lines on the table's character card) and ``gm_tools`` (the GM's tools on the table page).
A system without one of them gets ``templates/systems/_default/<part>.html`` (empty for card and GM tools).
"""

from __future__ import annotations

from functools import lru_cache

from django.template.loader import select_template

PARTS = ("sheet", "hireling", "card", "gm_tools")


@lru_cache(maxsize=64)
def system_template(system_id: str, part: str) -> str:
    """The template name to include for this system's ``part`` (looked up once per process)."""
    if part not in PARTS:
        raise ValueError(f"no system template part {part!r}")
    return select_template([f"systems/{system_id}/{part}.html", f"systems/_default/{part}.html"]).template.name
