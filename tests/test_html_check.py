"""The strict HTML check every response of the suite goes through (tests/html_check.py) sees real mistakes."""

from __future__ import annotations

import pytest

from tests.html_check import html_problems

PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>x</title></head><body>{}</body></html>'


def test_a_well_formed_page_and_fragment_pass():
    assert html_problems(PAGE.format('<p id="a">1 &gt; 0 &amp; <b>bold</b><br><input name="n"></p>')) == []
    assert html_problems('<section id="a"></section><section id="b" hx-swap-oob="outerHTML"></section>') == []


def test_svg_may_close_its_own_elements():
    assert html_problems('<svg viewBox="0 0 1 1"><path d="M0 0" /><use href="#i" /></svg>') == []


@pytest.mark.parametrize(
    ("markup", "problem"),
    [
        # The C&C GM tools' bug: a hidden input pasted inside hx-select showed raw markup on the GM's page.
        ('<form hx-select="#log >\n <input type="hidden" name="next"> .roll" hx-swap="innerHTML"></form>', "'<'"),
        ("<p>a stray > in text</p>", "raw '>'"),
        ('<p id="x"></p><p id="x"></p>', "duplicate id 'x'"),
        ("<div><p></div></p>", "closes <p>"),
        ("<section><p>never closed</p>", "never closed"),
        ("</div>", "closes nothing"),
        ("<br></br>", "void element"),
        ('<p class="a" class="b"></p>', "repeats the attribute"),
        ("<div />", "not a void element"),
        ('<p id=""></p>', "empty id"),
    ],
)
def test_malformed_markup_is_reported(markup, problem):
    problems = html_problems(markup)
    assert any(problem in p for p in problems), problems
