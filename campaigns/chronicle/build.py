"""A session's chronicle for one reader, from plain records: a pure function (no database, no Django).

``build(session, rolls, changes, fights, lines, reader)`` reads what the journal named between the session's start
and end (the rolls, the sheets' changes, the fights: campaigns.chronicle.read turns rows into these records) and
keeps what this reader could see at the time, as the roll log and the sheets show it:

- a roll: public to everyone; private to its roller alone (not even the GM); GM-only to the GM and its roller;
  blind to the GM, and to its roller as a line without its result (listed whatever it showed: a blind roll that
  appeared only when it mattered would tell its result);
- a sheet's change made by a roll: as that roll; any other change: everyone at the table, with the system's private
  fields (a secret faction) left out unless the reader owns the character or runs the table;
- fights, time passed, who was there and the GM's summary: everyone at the table.

A voided roll is listed as voided (what it would have done is said, never counted); a change put back from the
history, or a roll whose change was, as reverted. Nothing here is ever stored: each reader's text is built when read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from live.events import Seen

View = Literal["full", "line"] | None


@dataclass(frozen=True)
class Reader:
    """Who reads: their user id (None: the table at large, as a webhook's channel) and whether they run the table."""

    user_id: int | None
    is_gm: bool = False


PUBLIC_READER = Reader(None, False)


@dataclass(frozen=True)
class Present:
    character: int
    name: str
    user: int | None
    player: str


@dataclass(frozen=True)
class SessionRecord:
    number: int
    campaign: str
    started_at: datetime
    ended_at: datetime | None
    minutes: int  # game time that passed in it
    present: tuple[Present, ...]
    summary: str = ""


@dataclass(frozen=True)
class RollRecord:
    id: int
    character: int | None
    who: str  # the character's name, or "GM" for a roll without one
    roller: int | None
    label: str
    procedure: str
    outcome: str  # the rules' key
    outcome_words: str  # as the system words it
    summary: str
    visibility: str  # public, gm, private, blind
    voided: bool = False
    void_reason: str = ""
    undone: bool = False


@dataclass(frozen=True)
class ChangeRecord:
    id: int
    character: int
    who: str
    owner: int | None
    what: str
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    roll: int | None = None
    reverts: int | None = None
    reverted: bool = False
    private: tuple[str, ...] = ()  # the system's private fields (GameSystem.private_fields)
    money: Callable[[int], str] = field(default=lambda amount: f"{amount} coin", compare=False)


@dataclass(frozen=True)
class FightRecord:
    id: int
    name: str
    rounds: int
    active: bool
    foes: int
    defeated: int


@dataclass(frozen=True)
class CountdownRecord:
    """A countdown that moved in the session (issue 41): its name, its segments filled now, what players may know
    of it (``shown``: campaigns.Countdown.Shown), and each tick's visibility as the journal recorded it."""

    id: int
    name: str
    segments: int
    filled: int
    shown: str
    ticks: tuple[Seen, ...]


@dataclass(frozen=True)
class LineRecord:
    """A player's own line on an entry (``entry``: the entry's key)."""

    id: int
    entry: str
    author: int
    author_name: str
    text: str


@dataclass(frozen=True)
class Item:
    key: str  # what players' lines attach to: "roll-55", "change-8", "fight-3", "summary"
    text: str
    marks: tuple[str, ...] = ()  # critical, death, near-death, scar, level-up
    state: str = ""  # "voided", "reverted" or ""
    seen_by: str = ""  # for the GM's and the roller's eyes: "GM only", "blind", "private" ("" for everyone)
    lines: tuple[LineRecord, ...] = ()


@dataclass(frozen=True)
class Section:
    title: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Chronicle:
    number: int
    campaign: str
    started_at: datetime
    ended_at: datetime | None
    present: tuple[str, ...]
    time_passed: str
    rolls_seen: int
    sections: tuple[Section, ...]
    summary: str
    summary_lines: tuple[LineRecord, ...]

    def entry_keys(self) -> set[str]:
        """The entries this reader may see (and so add a line to)."""
        return {"summary"} | {item.key for section in self.sections for item in section.items}

    def text(self) -> str:
        """The chronicle as plain text: the API's, the webhook's and the tests' one form of it."""
        out = [f"Session {self.number} of {self.campaign}", _span(self.started_at, self.ended_at)]
        out.append("Present: " + (", ".join(self.present) or "nobody"))
        out.append(f"Time passed: {self.time_passed}")
        out.append(f"Rolls: {self.rolls_seen}")
        for section in self.sections:
            out += ["", section.title]
            for item in section.items:
                out.append("- " + item_words(item))
                out += [f'  > {line.author_name}: "{line.text}"' for line in item.lines]
        out += ["", "Summary", self.summary or "(the GM has written none)"]
        out += [f'  > {line.author_name}: "{line.text}"' for line in self.summary_lines]
        return "\n".join(out)


def item_words(item: Item) -> str:
    words = item.text
    if item.marks:
        words += " [" + ", ".join(item.marks) + "]"
    if item.seen_by:
        words += f" ({item.seen_by})"
    if item.state:
        words += f" — {item.state.upper()}"
    return words


def _span(start: datetime, end: datetime | None) -> str:
    first = start.strftime("%Y-%m-%d %H:%M UTC")
    if end is None:
        return f"Started {first}, still going"
    same = end.date() == start.date()
    return f"{first} to {end.strftime('%H:%M' if same else '%Y-%m-%d %H:%M')}"


def minutes_words(minutes: int) -> str:
    if minutes <= 0:
        return "none"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (mins, "minute")]
    return ", ".join(f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n)


# --- who sees what ------------------------------------------------------------------------------------------------


def roll_view(roll: RollRecord, reader: Reader) -> View:
    """How the reader sees a roll: its result ("full"), that it was rolled ("line": its blind roller), or not at all.
    The rules of characters.selectors.rolls_visible_to and live.events.Seen, asked of one record."""
    mine = reader.user_id is not None and reader.user_id == roll.roller
    if roll.visibility == "public":
        return "full"
    if roll.visibility == "private":
        return "full" if mine else None
    if roll.visibility == "gm":
        return "full" if mine or reader.is_gm else None
    if roll.visibility == "blind":
        return "full" if reader.is_gm else "line" if mine else None
    return None  # a visibility this code does not know: nobody


SEEN_BY = {"gm": "GM only", "blind": "blind", "private": "private"}


# --- what mattered --------------------------------------------------------------------------------------------------

DEATH_OUTCOMES = frozenset({"dead", "dies", "death", "killed"})
NEAR_DEATH_OUTCOMES = frozenset(
    {"dying", "deaths_door", "last_stand", "out", "standing", "critical_pass", "critical_fail"}
)
NEAR_DEATH_PROCEDURES = frozenset({"dying", "deaths_door", "last_stand", "heal_dying"})


def roll_marks(roll: RollRecord) -> tuple[str, ...]:
    """What made a roll matter, from its rules' keys (every system names these the same few ways)."""
    outcome, procedure = roll.outcome.lower(), roll.procedure.lower()
    marks: list[str] = []
    if outcome in DEATH_OUTCOMES:
        marks.append("death")
    elif outcome in NEAR_DEATH_OUTCOMES or procedure in NEAR_DEATH_PROCEDURES:
        marks.append("near-death")
    elif "crit" in outcome or outcome == "fumble":
        marks.append("critical")
    if "scar" in outcome or "scar" in roll.summary.lower():
        marks.append("scar")
    if "level" in procedure or "level" in outcome:
        marks.append("level-up")
    return tuple(marks)


def _state(change: ChangeRecord, side: str, hidden: tuple[str, ...]) -> dict[str, Any]:
    state = dict((change.before if side == "before" else change.after).get("state", {}) or {})
    return {path: value for path, value in state.items() if str(path).split(".")[0] not in hidden}


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def change_facts(change: ChangeRecord, hidden: tuple[str, ...]) -> list[tuple[str, str, tuple[str, ...]]]:
    """What one change did that a chronicle tells: (section, words, marks) each; nothing for an everyday edit."""
    before, after = _state(change, "before", hidden), _state(change, "after", hidden)
    facts: list[tuple[str, str, tuple[str, ...]]] = []
    who = change.who
    old_coins, new_coins = _number(before.get("coins")), _number(after.get("coins"))
    if old_coins is not None and new_coins is not None and old_coins != new_coins:
        delta = new_coins - old_coins
        verb = "gained" if delta > 0 else "spent"
        facts.append(("loot", f"{who} {verb} {change.money(abs(delta))}", ()))
    old_items = {row.get("id"): row for row in change.before.get("items", []) or [] if isinstance(row, Mapping)}
    new_items = {row.get("id"): row for row in change.after.get("items", []) or [] if isinstance(row, Mapping)}
    for item_id in dict.fromkeys([*old_items, *new_items]):
        old, new = old_items.get(item_id), new_items.get(item_id)
        row = new or old or {}
        name = str(row.get("name", "an item"))
        if row.get("kind") == "light" and old is not None:
            was_lit = bool((old.get("data") or {}).get("lit"))
            burnt = new is None or int(new.get("quantity", 0)) < int(old.get("quantity", 0))
            out = new is not None and was_lit and not (new.get("data") or {}).get("lit")
            if (burnt or out) and was_lit:
                facts.append(("lights", f"{who}'s {name} burnt out", ()))
                continue
        if old is None and new is not None:
            count = int(new.get("quantity", 1))
            facts.append(("loot", f"{who} gained {name}" + (f" ×{count}" if count > 1 else ""), ()))
        elif new is None and old is not None:
            facts.append(("loot", f"{who} lost {name}", ()))
    if change.what.startswith("Hired "):
        facts.append(("hirelings", f"{who} hired {change.what[len('Hired ') :]}", ()))
    elif change.what.startswith("Parted ways with "):
        facts.append(("hirelings", f"{who} parted ways with {change.what[len('Parted ways with ') :]}", ()))
    elif "hirelings" in change.before:
        facts.append(("hirelings", f"{who}'s hirelings: {change.what}", ()))
    old_level, new_level = _number(before.get("level")), _number(after.get("level"))
    if old_level is not None and new_level is not None and new_level > old_level:
        facts.append(("moments", f"{who} reached level {new_level}", ("level-up",)))
    died = after.get("dead") is True and before.get("dead") is not True
    if died or (after.get("status") == "dead" and before.get("status") != "dead"):
        facts.append(("moments", f"{who} died", ("death",)))
    elif (
        after.get("dying") is True
        and before.get("dying") is not True
        or (after.get("status") == "dying" and before.get("status") != "dying")
    ):
        facts.append(("moments", f"{who} was left dying", ("near-death",)))
    for path in after:
        if str(path).split(".")[0] == "scars" and after[path] != before.get(path):
            facts.append(("moments", f"{who} was scarred", ("scar",)))
            break
    return facts


# --- the chronicle ------------------------------------------------------------------------------------------------

SECTIONS = (
    ("moments", "What mattered"),
    ("blind", "Rolled blind"),
    ("fights", "Fights"),
    ("loot", "Loot gained and spent"),
    ("hirelings", "Hirelings"),
    ("lights", "Lights burnt"),
    ("countdowns", "Countdowns"),
)


def build(
    session: SessionRecord,
    rolls: Sequence[RollRecord],
    changes: Sequence[ChangeRecord],
    fights: Sequence[FightRecord],
    lines: Sequence[LineRecord],
    reader: Reader,
    countdowns: Sequence[CountdownRecord] = (),
) -> Chronicle:
    """The chronicle of one session as ``reader`` may read it (the module's docstring says who sees what)."""
    by_roll = {roll.id: roll for roll in rolls}
    views = {roll.id: roll_view(roll, reader) for roll in rolls}
    reverted = {change.reverts for change in changes if change.reverts is not None}
    placed: dict[str, list[Item]] = {key: [] for key, _ in SECTIONS}
    roll_facts: dict[int, list[tuple[str, str, tuple[str, ...]]]] = {}
    reverted_rolls: set[int] = set()

    for change in sorted(changes, key=lambda c: c.id):
        if change.reverts is not None:
            continue  # a revert is told on what it put back
        view = views.get(change.roll) if change.roll is not None else "full"
        if view != "full":
            continue  # a change made by a roll this reader may not see the result of
        own = reader.user_id is not None and reader.user_id == change.owner
        hidden = () if own or reader.is_gm else change.private
        facts = change_facts(change, hidden)
        is_reverted = change.reverted or change.id in reverted
        if change.roll is not None and change.roll in by_roll:
            roll_facts.setdefault(change.roll, []).extend(facts)
            if is_reverted:
                reverted_rolls.add(change.roll)
            continue
        for section, words, marks in facts:
            placed[section].append(
                Item(f"change-{change.id}", words, marks, "reverted" if is_reverted else "", lines=())
            )

    seen_count = 0
    for roll in sorted(rolls, key=lambda r: r.id):
        view = views[roll.id]
        if view is None:
            continue
        seen_count += 1
        state = "voided" if roll.voided else "reverted" if roll.undone or roll.id in reverted_rolls else ""
        seen_by = SEEN_BY.get(roll.visibility, "")
        if view == "line":
            text = f"{roll.who}: {roll.label} — rolled blind; the GM has the result"
            placed["blind"].append(Item(f"roll-{roll.id}", text, (), state, seen_by))
            continue
        facts = roll_facts.get(roll.id, [])
        marks = tuple(dict.fromkeys([*roll_marks(roll), *(m for _, _, fact_marks in facts for m in fact_marks)]))
        if not marks and not facts:
            continue  # an everyday roll: counted, not told
        text = f"{roll.who}: {roll.label} — {roll.outcome_words}"
        if roll.summary:
            text += f" ({roll.summary})"
        if roll.voided and roll.void_reason:
            text += f"; voided: {roll.void_reason}"
        told = [words for _, words, fact_marks in facts if not fact_marks]
        if told:
            text += "; " + "; ".join(told)
        placed["moments"].append(Item(f"roll-{roll.id}", text, marks, state, seen_by))

    for fight in sorted(fights, key=lambda f: f.id):
        rounds = f"{fight.rounds} round{'s' if fight.rounds != 1 else ''}"
        foes = f"{fight.defeated} of {fight.foes} foe{'s' if fight.foes != 1 else ''} defeated"
        if fight.active:
            outcome = "still going"
        elif fight.foes and fight.defeated == fight.foes:
            outcome = "won"
        else:
            outcome = "ended"
        placed["fights"].append(Item(f"fight-{fight.id}", f"{fight.name}: {rounds}, {foes}; {outcome}"))

    for countdown in sorted(countdowns, key=lambda c: c.id):
        countdown_line = countdown_item(countdown, reader)
        if countdown_line is not None:
            placed["countdowns"].append(countdown_line)

    by_entry: dict[str, list[LineRecord]] = {}
    for line in sorted(lines, key=lambda each: each.id):
        by_entry.setdefault(line.entry, []).append(line)
    sections = tuple(
        Section(title, tuple(_with_lines(item, by_entry) for item in placed[key]))
        for key, title in SECTIONS
        if placed[key]
    )
    present = tuple(f"{each.name} ({each.player})" for each in sorted(session.present, key=lambda p: p.name.lower()))
    return Chronicle(
        number=session.number,
        campaign=session.campaign,
        started_at=session.started_at,
        ended_at=session.ended_at,
        present=present,
        time_passed=minutes_words(session.minutes),
        rolls_seen=seen_count,
        sections=sections,
        summary=session.summary,
        summary_lines=tuple(by_entry.get("summary", ())),
    )


def countdown_item(countdown: CountdownRecord, reader: Reader) -> Item | None:
    """A countdown's line as this reader could see it move: the GM the whole; a player only the ticks the journal
    let them see, under its name unless it is hidden from them ("A countdown"), with its progress unless that is."""
    if not any(seen.lets(reader.user_id, is_gm=reader.is_gm) for seen in countdown.ticks):
        return None
    name = countdown.name if reader.is_gm or countdown.shown != "name_hidden" else "A countdown"
    progress = reader.is_gm or countdown.shown in ("all", "name_hidden")
    text = f"{name} moved on" + (f", now {countdown.filled} of {countdown.segments}" if progress else "")
    if progress and countdown.filled >= countdown.segments:
        text += " (complete)"
    hidden = {"gm": "GM only", "name_hidden": "name hidden", "progress_hidden": "progress hidden"}
    return Item(f"countdown-{countdown.id}", text, seen_by=hidden.get(countdown.shown, "") if reader.is_gm else "")


def _with_lines(item: Item, by_entry: Mapping[str, list[LineRecord]]) -> Item:
    found = by_entry.get(item.key)
    if not found:
        return item
    return Item(item.key, item.text, item.marks, item.state, item.seen_by, tuple(found))
