"""Issue 35, item 18: the drawn regions' cache keys name the build (core/deploy.py), so a cache the processes
share never serves one deploy's HTML after the next deploy changed a template.

The probe: a region and a sheet page drawn and kept by one build; then the next build (a changed template, the
same cache, as with Redis or the database cache): before the stamp, both came back as the old build drew them."""

from __future__ import annotations

import copy

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from django.urls import reverse

from characters.region_cache import sheet_region
from characters.selectors import character_for
from core import deploy

pytestmark = pytest.mark.django_db

OLD, NEW = '<h2 id="vitals-title">Vitals</h2>', '<h2 id="vitals-title">Vitals and wounds</h2>'


def _templates_with_sheet(source: str) -> list[dict]:
    """The project's template settings with characters/sheet.html replaced (a deploy that changed it)."""
    templates = copy.deepcopy(django_settings.TEMPLATES)
    partials_loader, [cached_loader] = templates[0]["OPTIONS"]["loaders"][0]
    cached, inner = cached_loader
    locmem = ("django.template.loaders.locmem.Loader", {"characters/sheet.html": source})
    templates[0]["OPTIONS"]["loaders"] = [(partials_loader, [(cached, [locmem, *inner])])]
    return templates


def test_a_kept_region_and_page_are_not_served_by_the_next_build(settings, as_user, player, hero):
    path = django_settings.BASE_DIR / "templates" / "characters" / "sheet.html"
    source = path.read_text()
    assert OLD in source
    page = reverse("characters:sheet", args=[hero.pk])
    settings.DEPLOY_STAMP = "build-1"
    seat = character_for(player, hero.pk)
    assert OLD in sheet_region(player, seat, "vitals")
    assert OLD in as_user(player).get(page).content.decode()

    settings.DEPLOY_STAMP = "build-2"
    with override_settings(TEMPLATES=_templates_with_sheet(source.replace(OLD, NEW))):
        region = sheet_region(player, character_for(player, hero.pk), "vitals")
        drawn = as_user(player).get(page).content.decode()
    assert NEW in region and OLD not in region
    assert NEW in drawn and OLD not in drawn


def test_unset_the_stamp_is_a_hash_of_the_templates_and_code_that_moves_with_them(settings, tmp_path):
    settings.DEPLOY_STAMP = ""
    assert deploy.deploy_stamp() == deploy._files_stamp()
    assert django_settings.BASE_DIR / "templates" in deploy._template_dirs()
    assert {d.name for d in deploy._code_dirs()} >= {"characters", "rules", "campaigns", "config"}
    (tmp_path / "characters").mkdir()
    sheet = tmp_path / "characters" / "sheet.html"
    sheet.write_text(OLD)
    (tmp_path / "notes.md").write_text("not drawn")
    first = deploy.files_stamp([tmp_path])
    (tmp_path / "notes.md").write_text("still not drawn")
    assert deploy.files_stamp([tmp_path]) == first
    sheet.write_text(NEW)
    assert deploy.files_stamp([tmp_path]) != first
    settings.DEPLOY_STAMP = "abc123"
    assert deploy.deploy_stamp() == "abc123"
