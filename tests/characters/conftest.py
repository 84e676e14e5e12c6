"""Character fixtures live in tests/conftest.py; this keeps the old import path working."""

from tests.conftest import make_character

__all__ = ["make_character"]
