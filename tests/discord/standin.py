"""A stand-in for Discord: it builds interactions as Discord sends them to an HTTP interactions endpoint, signs each
with a test Ed25519 key pair (the timestamp, then the raw body), posts it, and records the commands and answers
(``transcript``) as a session read from Discord's side.

``post(path, body, headers)`` is the transport: Django's test client, or real HTTP to a running server."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))  # the test application's key: fixed, never a secret
PUBLIC_KEY = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
APPLICATION_ID = "1234567890123456789"
GUILD_ID = "800000000000000001"
CHANNEL_ID = "800000000000000002"
PATH = "/discord/interactions/"

_ids = itertools.count(900000000000000000)


def signed(body: bytes, *, timestamp: str | None = None, key: Ed25519PrivateKey = KEY) -> dict[str, str]:
    stamp = timestamp if timestamp is not None else str(int(time.time()))
    return {
        "X-Signature-Ed25519": key.sign(stamp.encode() + body).hex(),
        "X-Signature-Timestamp": stamp,
        "Content-Type": "application/json",
    }


@dataclass
class Answer:
    status: int
    json: dict[str, Any]

    @property
    def content(self) -> str:
        return str((self.json.get("data") or {}).get("content", ""))

    @property
    def ephemeral(self) -> bool:
        return bool((self.json.get("data") or {}).get("flags", 0) & 64)


@dataclass
class Discord:
    post: Callable[[str, bytes, dict[str, str]], tuple[int, dict]]
    channel_id: str = CHANNEL_ID
    users: dict[str, str] = field(default_factory=dict)  # a name → its Discord user id
    transcript: list[str] = field(default_factory=list)
    last_body: bytes = b""
    last_headers: dict[str, str] = field(default_factory=dict)

    def user_id(self, name: str) -> str:
        return self.users.setdefault(name, str(700000000000000000 + len(self.users) + 1))

    def interaction(self, kind: int, data: dict[str, Any] | None, *, by: str, message: dict | None = None) -> dict:
        body: dict[str, Any] = {
            "id": str(next(_ids)),
            "application_id": APPLICATION_ID,
            "type": kind,
            "token": "interaction-token",
            "version": 1,
            "guild_id": GUILD_ID,
            "channel_id": self.channel_id,
            "channel": {"id": self.channel_id, "type": 0},
            "member": {"user": {"id": self.user_id(by), "username": by, "global_name": by}, "roles": []},
        }
        if data is not None:
            body["data"] = data
        if message is not None:
            body["message"] = message
        return body

    def send(self, interaction: dict, **signing: Any) -> Answer:
        raw = json.dumps(interaction).encode()
        headers = signed(raw, **signing)
        self.last_body, self.last_headers = raw, headers
        status, answer = self.post(PATH, raw, headers)
        return Answer(status, answer)

    def ping(self) -> Answer:
        return self.send({"id": str(next(_ids)), "application_id": APPLICATION_ID, "type": 1, "token": "t"})

    def command(self, by: str, name: str, /, sub: str = "", **options: Any) -> Answer:
        opts = [{"type": _type(v), "name": k, "value": v} for k, v in options.items()]
        if sub:
            opts = [{"type": 1, "name": sub, "options": opts}]
        answer = self.send(self.interaction(2, {"id": "1", "name": name, "type": 1, "options": opts}, by=by))
        typed = " ".join([f"/{name}", sub, *(f"{k}:{v}" for k, v in options.items())]).replace("  ", " ")
        self._record(by, typed, answer)
        return answer

    def press(self, by: str, custom_id: str, message: dict | None = None) -> Answer:
        data = {"custom_id": custom_id, "component_type": 2}
        answer = self.send(self.interaction(3, data, by=by, message=message or {"id": "1", "content": ""}))
        self._record(by, f"[button {custom_id}]", answer)
        return answer

    def complete(self, by: str, name: str, focused: str, typed: str = "", **options: Any) -> Answer:
        opts = [{"type": 3, "name": k, "value": v} for k, v in options.items()]
        opts.append({"type": 3, "name": focused, "value": typed, "focused": True})
        return self.send(self.interaction(4, {"id": "1", "name": name, "type": 1, "options": opts}, by=by))

    def _record(self, by: str, typed: str, answer: Answer) -> None:
        shown = "only them" if answer.ephemeral else "the channel"
        kind = answer.json.get("type")
        self.transcript.append(f"{by}> {typed}\n  [{answer.status} type {kind}, {shown}] {answer.content}")


def _type(value: Any) -> int:
    return 5 if isinstance(value, bool) else 4 if isinstance(value, int) else 3


def through_client(client) -> Callable[[str, bytes, dict[str, str]], tuple[int, dict]]:
    """The transport through Django's test client (the whole middleware stack, no server)."""

    def post(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        extra = {k: v for k, v in headers.items() if k != "Content-Type"}
        response = client.post(path, data=body, content_type="application/json", headers=extra)
        return response.status_code, response.json()

    return post
