"""Service modules split into a package by feature, with the package still the one place callers patch."""

from __future__ import annotations

import sys
from types import ModuleType


def patch_through(package: str, features: tuple[ModuleType, ...]) -> None:
    """Setting a name on ``package`` (a test scripting its ``system_random``, watching its ``publish``) sets it in
    each of its feature modules that has that name too: their functions look their names up there, and callers
    keep patching the one place they always have."""

    class Package(ModuleType):
        def __setattr__(self, name: str, value) -> None:
            super().__setattr__(name, value)
            for module in features:
                if name in vars(module) and not isinstance(value, ModuleType):
                    setattr(module, name, value)

    sys.modules[package].__class__ = Package
