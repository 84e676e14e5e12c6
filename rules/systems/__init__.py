"""One module per game system; each exposes ``SYSTEM`` implementing rules.base.GameSystem."""
