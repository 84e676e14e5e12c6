"""Capture the states an earlier commit's rules write, as fixtures for tests/rules/test_state_versions.py.

    .venv/bin/python tools/capture_states.py COMMIT SYSTEM_ID [--version N] [--most 4] >> picked.json

It copies that commit's ``rules/`` package out of git into a temporary folder and, in a fresh interpreter that
imports only it, makes characters from each creation choice and rolls each procedure once with its default inputs:
the states a sheet of that day held. It prints a few of them, the most unlike each other, as JSON rows to paste
into tests/data/states/SYSTEM_ID.json (docs/adding-a-system.md, "Reshaping a system's state").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run inside the old package: plain calls any commit's rules answer (create, procedures, params, roll).
PLAY = """
import json, random, sys
sys.path.insert(0, sys.argv[1])
import rules
from rules import base
system = rules.SYSTEMS[sys.argv[2]]
rows = []

def inputs(procedure, sheet):
    out = {}
    for p in procedure.params(sheet):
        if p.kind == "character":
            out[p.name] = None
        elif p.kind == "choice" and p.choices and p.default in (None, ""):
            out[p.name] = p.choices[0][0]
        elif p.kind == "multichoice":
            out[p.name] = ()
        else:
            out[p.name] = p.default
    return out



def creation_params(system):
    # The creation form's inputs of the rules tree being read: this script reads every historical commit's rules,
    # and the trees older than the creation form (before GameSystem had creation_params) have none.
    try:
        return tuple(system.creation_params())
    except AttributeError:
        return ()


offered = creation_params(system)
choices = [{}] + [{p.name: v} for p in offered if p.kind == "choice" for v, _ in p.choices if v]
for choice in choices:
    try:
        made = system.create(choice, random.Random(1))
    except Exception:
        continue
    sheet = base.Sheet(state=made.state, items=tuple(made.items), name=made.name)
    rows.append({"how": f"create({choice}, Random(1))", "state": made.state})
    for key, procedure in system.procedures().items():
        try:
            result = procedure.roll(sheet, inputs(procedure, sheet), random.Random(1))
        except Exception:
            continue
        if result.state is not None:
            how = f"create({choice}, Random(1)), then {key} with its default inputs"
            rows.append({"how": how, "state": result.state})
print(json.dumps(rows))
"""


def _paths(value, prefix: str = "") -> set[str]:
    """Every field path with the type and value it holds: what makes two states unlike."""
    if isinstance(value, dict):
        return set().union(*(_paths(v, f"{prefix}.{k}") for k, v in value.items())) if value else {prefix + "={}"}
    return {f"{prefix}={value!r}"}


def pick(rows: list[dict], most: int) -> list[dict]:
    """Up to ``most`` rows, each the one adding the most paths not seen yet (the first: a fresh character)."""
    chosen: list[dict] = []
    seen: set[str] = set()
    while rows and len(chosen) < most:
        best = max(rows, key=lambda row: len(_paths(row["state"]) - seen))
        if chosen and not _paths(best["state"]) - seen:
            break
        chosen.append(best)
        seen |= _paths(best["state"])
        rows = [row for row in rows if row is not best]
    return chosen


def capture(commit: str, system_id: str, version: int, most: int) -> list[dict]:
    full = subprocess.run(["git", "rev-parse", commit], cwd=ROOT, capture_output=True, text=True, check=True)
    sha = full.stdout.strip()
    subject = subprocess.run(["git", "log", "-1", "--format=%s", sha], cwd=ROOT, capture_output=True, text=True)
    archive = subprocess.run(["git", "archive", sha, "rules"], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        played = subprocess.run(
            [sys.executable, "-c", PLAY, folder, system_id], capture_output=True, text=True, cwd=folder
        )
    if played.returncode:
        raise SystemExit(f"{sha[:7]}'s rules did not play {system_id}:\n{played.stderr[-2000:]}")
    rows = pick(json.loads(played.stdout), most)
    return [{"commit": sha, "subject": subject.stdout.strip()[:120], "version": version, **row} for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit")
    parser.add_argument("system")
    parser.add_argument("--version", type=int, default=1, help="the state version that commit's rules wrote")
    parser.add_argument("--most", type=int, default=4, help="how many states to keep")
    args = parser.parse_args()
    print(json.dumps(capture(args.commit, args.system, args.version, args.most), indent=1))


if __name__ == "__main__":
    main()
