"""Issue 40, "Print that carries the odds", in Chromium: each system's demo character (``manage.py demo``) prints
on ONE page of A4 and of Letter (Playwright's page.pdf with the print media, the page's own @page size), and each
chance it prints, read from the page under print media, equals the sheet's odds box for the same roll and inputs:
the boxes of the sheet's own roll controls for each roll's defaults, the box's odds request for a stat or a weapon.
The screen view reads on a phone without sideways scrolling. Run with ``-s`` for the figures per system."""

from __future__ import annotations

import os
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from characters.demo import DEMO_OWNERS
from characters.models import Character
from rules import SYSTEMS
from tests.browser.conftest import log_in

DEMO_PASSWORD = "lantern"
SHOTS = os.environ.get("LANTERN_SCREENSHOTS", "")  # a folder: each printed PDF is kept there
PAPERS = {"a4": "A4", "letter": "Letter"}
POINTS = {"a4": (595, 842), "letter": (612, 792)}  # each paper's size in PDF points, as the page's @page sets it
PRINTED = """() => [...document.querySelectorAll(".print-odds")].map((el) => ({
  procedure: el.dataset.procedure, inputs: el.dataset.inputs, odds: el.dataset.odds,
  exact: [...el.querySelectorAll(".exact")].map((x) => x.innerText.trim()),
  shown: el.offsetParent !== null && el.getBoundingClientRect().width > 0,
  default: !el.closest("tr").dataset.by }))"""


def pdf_pages(pdf: bytes) -> int:
    """The pages of a PDF: its /Type /Page objects (not the /Pages tree that holds them)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def paper_size(pdf: bytes) -> tuple[int, int]:
    """The first page's size in points (its /MediaBox), rounded."""
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box, "the PDF names no page size"
    return round(float(box.group(1))), round(float(box.group(2)))


def _demo(system: str) -> Character:
    call_command("demo", force=True, verbosity=0)
    owner, name = DEMO_OWNERS[system]
    return Character.objects.get(system=system, name=name, owner__username=owner)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_each_demo_sheet_prints_on_one_page_with_the_sheets_own_odds(new_page, system):
    hero = _demo(system)
    page = new_page(1280, 900)
    log_in(page, hero.owner.username, DEMO_PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    page.locator("[data-print-link]").click()
    page.wait_for_url(f"**/characters/{hero.pk}/print/")
    page.emulate_media(media="print")
    printed = page.evaluate(PRINTED)
    assert printed, f"{system}: no chances printed"
    for chance in printed:
        assert chance["shown"], f"{system}: {chance} does not print"
        assert chance["exact"] and all(re.fullmatch(r"\d+/\d+", e) for e in chance["exact"]), chance
    figures = {}
    for paper, size in PAPERS.items():
        page.goto(f"/characters/{hero.pk}/print/?paper={paper}")
        pdf = page.pdf(prefer_css_page_size=True, print_background=True)
        figures[paper] = {"pages": pdf_pages(pdf), "bytes": len(pdf)}
        if SHOTS:
            with open(os.path.join(SHOTS, f"print-{system}-{paper}.pdf"), "wb") as out:
                out.write(pdf)
            page.set_viewport_size({"width": 760, "height": 1060})  # about A4's printable area at 96 dpi
            page.screenshot(path=os.path.join(SHOTS, f"print-{system}-{paper}.png"), full_page=True)
        assert SHOTS or pdf_pages(pdf) == 1, f"{system} prints on {pdf_pages(pdf)} {size} pages"
        assert paper_size(pdf) == POINTS[paper], f"{system}: the {size} page is {paper_size(pdf)} points"
    print(f"{system}: {len(printed)} chances, {figures}")
    page.set_viewport_size({"width": 1280, "height": 900})
    # The sheet's own odds boxes: each roll's control opened on the sheet shows its odds at its defaults.
    page.emulate_media(media="screen")
    page.goto(f"/characters/{hero.pk}/")
    for chance in printed:
        key = chance["procedure"]
        if chance["default"]:
            control = page.locator(f'#part-roll details.roll-control[data-procedure="{key}"]')
            if not control.get_attribute("open"):
                control.locator("summary").click()
            box = control.locator(f"#odds-{key} .odds-line")
            expect(box).to_have_attribute("data-odds", chance["odds"])
        else:  # by stat or weapon: the box's own request, with the inputs the form would send
            answer = page.request.get(f"/characters/{hero.pk}/odds/{key}/?{chance['inputs']}")
            assert answer.ok, (system, chance)
            assert f'data-odds="{chance["odds"]}"' in answer.text(), (system, chance)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_each_systems_pregen_prints_on_one_page(new_page, system):
    """A convention's pregen, from a fixed seed: one page of A4 and of Letter, its chances printed."""
    hero = _demo(system)
    page = new_page(1280, 900)
    log_in(page, hero.owner.username, DEMO_PASSWORD)
    figures = {}
    for paper in PAPERS:
        page.goto(f"/characters/pregens/{system}/?seed=40&paper={paper}")
        page.emulate_media(media="print")
        chances = page.evaluate(PRINTED)
        assert chances and all(chance["shown"] for chance in chances), f"{system}: the pregen prints no chances"
        pdf = page.pdf(prefer_css_page_size=True, print_background=True)
        figures[paper] = {"chances": len(chances), "pages": pdf_pages(pdf), "bytes": len(pdf)}
        assert pdf_pages(pdf) == 1, f"{system}'s pregen prints on {pdf_pages(pdf)} {PAPERS[paper]} pages"
        assert paper_size(pdf) == POINTS[paper]
    print(f"{system} pregen: {figures}")


def test_the_printed_pages_read_on_a_phone_without_sideways_scrolling(new_page):
    """The screen view of each printed page on a 375 px phone: the sheet, a pregen, the GM's party page."""
    hero = _demo("fortunes-favor")
    pages = {
        "bob": [f"/characters/{hero.pk}/print/", "/characters/pregens/grit-flesh/?seed=3"],
        "gm": [f"/campaigns/{hero.campaign_id}/party/print/"],
    }
    for user, urls in pages.items():
        page = new_page(375, 812)
        log_in(page, user, DEMO_PASSWORD)
        for url in urls:
            page.goto(url)
            expect(page.locator(".print-odds").first).to_be_visible()
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= 375, f"{url} is {wide} px wide on a 375 px phone"
