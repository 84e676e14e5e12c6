"""A strict well-formedness check for the HTML Lantern renders, run on every response the suite sees.

Browsers repair broken markup silently, so a template mistake (a hidden input pasted inside an attribute,
a stray ``>``, two elements with one id) shows raw text on a page or breaks an htmx selector while every
test of it still passes. This check is stricter than HTML requires, on purpose: every element that is not
void is closed explicitly and in order, attribute values hold no raw ``<``, text holds no raw ``>``, and ids
are unique. Our templates are written that way, so anything else is a template bug.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Void elements never have an end tag.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
RAW_TEXT = frozenset({"script", "style"})
FOREIGN = frozenset({"svg", "math"})  # inside these, XML rules apply: <path /> closes itself
# An attribute name is letters, digits and - _ : . @ (htmx and hyperscript-style names included).
ATTRIBUTE_NAME = re.compile(r"^[a-z_:@][a-z0-9_:.@-]*$")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # keep entities apart from raw text, to spot a raw ">"
        self.problems: list[str] = []
        self.stack: list[tuple[str, int]] = []
        self.ids: dict[str, int] = {}

    def _where(self) -> str:
        return f"line {self.getpos()[0]}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check_tag(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check_tag(tag, attrs)
        if tag not in VOID and not any(open_tag in FOREIGN for open_tag, _ in self.stack):
            self.problems.append(f"{self._where()}: <{tag} /> is not a void element; close it with </{tag}>")

    def _check_tag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raw = self.get_starttag_text() or ""
        if "<" in raw[1:]:
            self.problems.append(f"{self._where()}: a '<' inside the tag {raw[:100]!r} (markup in an attribute?)")
        seen: set[str] = set()
        for name, value in attrs:
            if not ATTRIBUTE_NAME.match(name):
                self.problems.append(f"{self._where()}: <{tag}> has a malformed attribute name {name!r}")
            if name in seen:
                self.problems.append(f"{self._where()}: <{tag}> repeats the attribute {name!r}")
            seen.add(name)
            if name == "id":
                if not value:
                    self.problems.append(f"{self._where()}: <{tag}> has an empty id")
                elif value in self.ids:
                    self.problems.append(f"{self._where()}: duplicate id {value!r} (first on line {self.ids[value]})")
                else:
                    self.ids[value] = self.getpos()[0]

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.problems.append(f"{self._where()}: </{tag}> closes a void element")
            return
        if not self.stack:
            self.problems.append(f"{self._where()}: </{tag}> closes nothing")
            return
        open_tag, line = self.stack[-1]
        if open_tag == tag:
            self.stack.pop()
            return
        self.problems.append(f"{self._where()}: </{tag}> closes <{open_tag}> opened on line {line}")
        # Resynchronise on the nearest matching open element so one mistake is reported once.
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][0] in RAW_TEXT:
            return
        if ">" in data:
            snippet = data.strip()[:80]
            self.problems.append(f"{self._where()}: a raw '>' in text {snippet!r} (a broken tag or attribute?)")

    def close(self) -> None:
        super().close()
        if self.rawdata.strip():
            self.problems.append(f"{self._where()}: the document ends inside a tag: {self.rawdata.strip()[:80]!r}")
        for tag, line in self.stack:
            self.problems.append(f"<{tag}> opened on line {line} is never closed")


def html_problems(markup: str) -> list[str]:
    """Every well-formedness problem of a page or a fragment (several top-level elements are fine)."""
    checker = _Checker()
    checker.feed(markup)
    checker.close()
    return checker.problems
