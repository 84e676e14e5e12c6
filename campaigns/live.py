"""The per-process hub that fans signals out to open event streams (filled in by the live-table work)."""

from __future__ import annotations


class Hub:
    def dispatch_threadsafe(self, payload: dict) -> None:
        pass


hub = Hub()
