#!/usr/bin/env bash
# Issue 39's yardstick in one command: Kettlewright (Flask + HTMX character keeper) from its public repository at a
# pinned commit, served by gunicorn + eventlet pinned to core 0 beside `make bench`, with one confirmed user and one
# Cairn character of 8 items in a 10-slot container; then `make bench` with it beside Lantern.
#
#   bash bench/kettlewright.sh              # set up (once), serve, bench, stop
#   KETTLEWRIGHT_REPO=/path/to/a/clone bash bench/kettlewright.sh   # from a local clone or mirror instead
#   KW_ONLY_SERVE=1 bash bench/kettlewright.sh   # set up and serve; print the variables `make bench` reads
#
# None of its code enters this repository: it is cloned under $KW_DIR (default /tmp/kettlewright), in a venv of
# its own with its requirements and its Pipfile's gunicorn and eventlet (gunicorn 24+ has no eventlet worker).
set -euo pipefail

KW_REPO=${KETTLEWRIGHT_REPO:-https://github.com/yochaigal/kettlewright}
KW_COMMIT=d5deaf29ab97b6e4982df7d2c5534851361ee8cb # 7 May 2026
KW_DIR=${KW_DIR:-${TMPDIR:-/tmp}/kettlewright}
KW_PORT=${KW_PORT:-8765}
HERE=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -d "$KW_DIR/src/.git" ]; then
	git clone -q "$KW_REPO" "$KW_DIR/src"
fi
git -C "$KW_DIR/src" checkout -q "$KW_COMMIT"
if [ ! -x "$KW_DIR/venv/bin/gunicorn" ]; then
	python3 -m venv "$KW_DIR/venv"
	"$KW_DIR/venv/bin/pip" install -q -r "$KW_DIR/src/requirements.txt" 'gunicorn==23.0.0' 'eventlet==0.38.0'
fi

cd "$KW_DIR/src"
export SECRET_KEY=bench SQLALCHEMY_DATABASE_URI=sqlite:///db.sqlite REQUIRE_SIGNUP_CODE=False USE_REDIS=False \
	USE_CAPTCHA=False
if [ ! -f instance/db.sqlite ] && [ ! -f db.sqlite ]; then
	"$KW_DIR/venv/bin/flask" --app app db upgrade >/dev/null
	"$KW_DIR/venv/bin/python" - <<'PY'
import json

from app import create_app
from app.models import Character, User, db

app = create_app()
with app.app_context():
    user = User(email="bench@example.com", username="bench", confirmed=True)
    user.password = "bench-password"
    db.session.add(user)
    db.session.commit()
    items = [
        {"id": str(n), "name": name, "tags": ["petty"] if n > 5 else [], "location": 0}
        for n, name in enumerate(
            ["Sword", "Shield", "Rope", "Torch", "Rations", "Lantern", "Chalk", "Flint"], start=1
        )
    ]
    db.session.add(Character(
        url_name="bench", owner=user.id, owner_username="bench", name="bench", background="Bench",
        strength=12, strength_max=12, dexterity=11, dexterity_max=11, willpower=10, willpower_max=10,
        hp=5, hp_max=5, gold=10, deprived=False, panicked=False, armor="1",
        items=json.dumps(items), containers=json.dumps([{"name": "Main", "slots": 10, "id": 0}]),
        description="d", traits="t", notes="n", bonds="b", scars="", omens="o",
    ))
    db.session.commit()
PY
fi

taskset -c 0 "$KW_DIR/venv/bin/gunicorn" -k eventlet -w 1 -b "127.0.0.1:$KW_PORT" --timeout 120 \
	--pid "$KW_DIR/gunicorn.pid" app:application >"$KW_DIR/gunicorn.log" 2>&1 &
trap 'kill "$(cat "$KW_DIR/gunicorn.pid" 2>/dev/null)" 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$KW_PORT/login" && break; sleep 0.2; done

# Log in through its form as a browser does: its CSRF token from the page, the session cookie from the answer.
jar=$KW_DIR/cookies.txt
rm -f "$jar"
token=$(curl -fs -c "$jar" "http://127.0.0.1:$KW_PORT/login" | sed -n 's/.*name="csrf_token"[^>]*value="\([^"]*\)".*/\1/p' | head -1)
curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf_token=$token" \
	--data-urlencode "email=bench@example.com" --data-urlencode "password=bench-password" \
	"http://127.0.0.1:$KW_PORT/login"
session=$(awk '$6 == "session" {print $7}' "$jar")
[ -n "$session" ] || { echo "Kettlewright's login gave no session cookie: see $KW_DIR/gunicorn.log" >&2; exit 1; }

export KETTLEWRIGHT_URL="http://127.0.0.1:$KW_PORT/users/bench/characters/bench/"
export KETTLEWRIGHT_COOKIE="session=$session"
curl -fs -o /dev/null -b "$KETTLEWRIGHT_COOKIE" "$KETTLEWRIGHT_URL" \
	|| { echo "Kettlewright's sheet did not answer logged in" >&2; exit 1; }
if [ -n "${KW_ONLY_SERVE:-}" ]; then
	echo "KETTLEWRIGHT_URL=$KETTLEWRIGHT_URL"
	echo "KETTLEWRIGHT_COOKIE=$KETTLEWRIGHT_COOKIE"
	echo "serving (pid $(cat "$KW_DIR/gunicorn.pid")); Ctrl-C stops it"
	wait
else
	make -C "$HERE" bench
fi
