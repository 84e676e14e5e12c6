"""Chaos & Conquest money and equipment tables.

Pennies written the rules' way (1 m = 20 s = 240 p), coins by weight, and the catalogue from equipment.md.
"""

from __future__ import annotations

from rules.base import CatalogueEntry
from rules.data import chaos_conquest as data


def format_money(amount: int) -> str:
    """An amount in pennies written the rules' way (equipment.md, Currency): 1 m = 20 s = 240 p -> "1m 3s 4p"."""
    sign = "-" if amount < 0 else ""
    marks, rest = divmod(abs(int(amount)), data.PENNIES_PER_MARK)
    shillings, pence = divmod(rest, data.PENNIES_PER_SHILLING)
    parts = [f"{n}{unit}" for n, unit in ((marks, "m"), (shillings, "s"), (pence, "p")) if n]
    return sign + (" ".join(parts) or "0p")


MONEY_NOTE = (
    f"{data.PENNIES_PER_SHILLING} pennies (p) make a shilling (s); "
    f"{data.PENNIES_PER_MARK // data.PENNIES_PER_SHILLING} shillings make a mark (m)."
)


def coin_count(pennies: int) -> int:
    """How many coins a sum is, paid in the fewest coins (marks, then shillings, then pennies)."""
    marks, rest = divmod(max(0, pennies), data.PENNIES_PER_MARK)
    shillings, pence = divmod(rest, data.PENNIES_PER_SHILLING)
    return marks + shillings + pence


def coin_slots(coins: int) -> int:
    """equipment.md, Currency: up to 500 coins ride free, then every 1,000 (or part) take a slot."""
    over = max(0, coins - data.FREE_COINS)
    return -(-over // data.COINS_PER_SLOT)


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """equipment.md's tables, prices in pennies (silver weapons at ten times the price)."""
    out: list[CatalogueEntry] = []
    for name, die, slots_, price, extra, note in data.WEAPONS:
        if price is None:
            continue  # bare hands are no purchase
        numbers = {"damage": die, **extra}
        out.append(CatalogueEntry(name, "weapon", price, slots_, "Weapons", numbers, note))
    for name, die, slots_, price, extra, note in data.WEAPONS:
        if price is not None:
            silver_note = "Wears after every attack; harms what only silver harms."
            out.append(
                CatalogueEntry(
                    f"Silver {name.lower()}",
                    "weapon",
                    price * data.SILVER_PRICE_FACTOR,
                    slots_,
                    "Silver weapons",
                    {"damage": die, **extra, "silver": True},
                    f"{note} {silver_note}".strip(),
                )
            )
    for name, kind, av, slots_, price, extra, note in data.ARMOUR:
        numbers = {"av": av, **extra} if av else dict(extra)
        out.append(CatalogueEntry(name, kind, price, slots_, "Armour", numbers, note))
    for name, kind, slots_, price, extra, note in data.GEAR:
        out.append(CatalogueEntry(name, kind, price, slots_, "Gear", dict(extra), note))
    for name, price, note in data.SERVICES:
        out.append(CatalogueEntry(name, "service", price, 0, "Food, lodging and travel", {}, note))
    # equipment.md's Buildings (a watchtower, a road by the mile) are not in it: nothing a character carries or hires,
    # and "buying" one took the money and added nothing. Their prices stay in rules.data for the GM.
    for name, ridden, unridden, miles, price, hd, skill, ml, traits in data.MOUNTS:
        numbers = {
            "mount": True,
            "slots_ridden": ridden,
            "slots_unridden": unridden,
            "miles_per_day": miles,
            "hd": hd,
            "skill": skill,
            "ml": ml,
        }
        out.append(CatalogueEntry(name, "animal", price, 0, "Mounts", numbers, traits))
    return tuple(out)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()
