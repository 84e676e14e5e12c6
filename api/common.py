"""What more than one area of the API answers with: a refusal, a track, a roll, a roll request."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Field, Schema

from core.converters import MAX_ID

Id = Annotated[int, Field(ge=1, le=MAX_ID)]


class Detail(Schema):
    detail: str = Field(description="What was refused, in the sentence the page shows.")


class TrackOut(Schema):
    key: str
    label: str
    current: int
    shown: int
    maximum: int | None
    minimum: int
    adjustable: bool


class RollOut(Schema):
    id: int
    campaign_id: int | None
    character_id: int | None
    character: str
    roller: str
    procedure: str
    label: str
    at: str
    visibility: Literal["public", "gm", "private", "blind"]
    rolled_by_hand: bool
    undone: bool
    outcome: str | None = None
    dice: list[dict[str, Any]] | None = None
    total: int | None = None
    summary: str | None = None
    odds: dict[str, str] | None = Field(None, description='Exact odds it was rolled at: {"outcome": "3/4"}.')
    result: str | None = Field(None, description="Instead of the result, for a blind roll seen by its roller.")
    voided: dict[str, Any] | None = None


class AnswerOut(Schema):
    character_id: int
    answered_at: str | None
    outcome: str
    roll_id: int | None
    skipped: bool = Field(False, description="The GM left this absent player out of a group check.")
    for_player: bool = Field(False, description="The GM rolled it on the player's behalf.")


class AskedOut(Schema):
    procedure: str
    label: str
    fixed: dict[str, Any]
    shown: str


class RequestOut(Schema):
    id: int
    campaign_id: int
    procedure: str
    label: str
    fixed: dict[str, Any]
    shown: str
    blind: bool
    status: str
    open: bool
    expires_at: str
    group_outcome: str
    group_summary: str
    rule: str = Field("", description="A group check's rule: system, all, any, half or best; empty for a request.")
    group_seen: str = Field("public", description="Who sees a group check's outcome: public, gm or blind.")
    group_odds: dict[str, str] = Field(default_factory=dict, description="The group's exact odds when asked.")
    shared_check: str = Field(
        "", description="At a table of several systems: the shared check asked (might, agility, wits, …); empty: none."
    )
    per_system: dict[str, AskedOut] = Field(
        default_factory=dict,
        description="At a table of several systems: the roll asked of each system's characters, by system id.",
    )
    answers: list[AnswerOut]
