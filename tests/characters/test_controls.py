"""The roll panel's hand-written inputs (characters.controls) say what Django's form rendering said."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string

from characters.controls import procedure_fields
from characters.forms import procedure_form
from rules import SYSTEMS
from rules import base as rules_base
from tests.conftest import make_character


class _Elements(HTMLParser):
    """Start tags with their attributes, end tags and text, whitespace squeezed: what a browser builds."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[tuple] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.out.append(("start", tag, tuple(sorted((k, v or "") for k, v in attrs))))

    def handle_endtag(self, tag) -> None:
        self.out.append(("end", tag))

    def handle_data(self, data) -> None:
        if text := " ".join(data.split()):
            self.out.append(("text", text))


def elements(markup: str) -> list[tuple]:
    parser = _Elements()
    parser.feed(markup)
    return parser.out


@pytest.mark.django_db
@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("as_gm", [True, False], ids=["gm", "player"])
def test_every_procedure_draws_the_inputs_django_drew(system, as_gm, player, other_player, campaign):
    """Same names, ids, labels, help, choices, defaults and flags, for every procedure of every system."""
    campaign.system = system
    campaign.save()
    hero = make_character(player, campaign, system=system, name="Wren")
    table = [make_character(other_player, campaign, system=system, name="Ash & <Co>", seed=11)]
    sheet = hero.checked_sheet()
    rules = SYSTEMS[system]
    procedures = rules.procedures().values()
    assert procedures
    for procedure in procedures:
        form = procedure_form(procedure, sheet, table_characters=table, gm=as_gm, prefixed=True)
        django_markup = render_to_string("_form.html", {"form": form})
        ours = procedure_fields(procedure, sheet, table_characters=table, gm=as_gm)
        assert elements(ours) == elements(django_markup), procedure.key


def test_defaults_and_flags_are_drawn():
    """Checked boxes, chosen options, values and the reset marker come from the params."""
    procedure = type(
        "P",
        (),
        {
            "key": "p",
            "params": staticmethod(
                lambda sheet: (
                    rules_base.Param("push", "Push?", kind="bool", default=True, resets=True, help="It costs."),
                    rules_base.Param("how", "How", kind="choice", default="b", choices=(("a", "A"), ("b", "B <b>"))),
                    rules_base.Param(
                        "many", "Many", kind="multichoice", default=["y"], choices=(("x", "X"), ("y", "Y"))
                    ),
                    rules_base.Param("n", "N", default=3, minimum=0, maximum=9),
                    rules_base.Param("note", "Note", kind="text", default='a "quote"'),
                    rules_base.Param("dn", "DN", gm_only=True),
                )
            ),
        },
    )
    form = procedure_form(procedure, None, gm=False, prefixed=True)
    assert elements(procedure_fields(procedure, None, gm=False)) == elements(
        render_to_string("_form.html", {"form": form})
    )
