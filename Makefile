# Lantern: `make run` serves the app with demo data; `make test` runs lint and the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
RELOAD_DIRS := --reload-dir core --reload-dir config --reload-dir rules --reload-dir accounts --reload-dir campaigns \
	--reload-dir characters --reload-dir live --reload-dir templates --reload-include '*.html'

.PHONY: run serve-checked test lint format bench bench-kettlewright bench-live bench-compare bench-journal clean

# Without Debian's python3-venv, `python3 -m venv` fails half-way and leaves a .venv with no pip in it: a venv
# without pip is made afresh, and a failure says which package is missing.
$(BIN)/pip:
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); echo "Python could not make a virtual environment:" \
		"install python3-venv (apt-get install python3-venv), then make again." >&2; exit 1; }
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/pip
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@ $(VENV)/.installed-run

# The ASGI server streams the live table's events; plain `runserver` (WSGI) cannot.
# On SQLite a second server would refuse in its worker while the reloader waits on: stop before that.
# check_one_server says in a sentence when the database is missing, refuses while another server serves the
# SQLite file, and runs the rest (serve-checked, not meant to be run by itself) holding `make run`'s lock, so a
# second `make run` stops at once even while the first is still migrating.
# The webhook worker and the clock ticker (processes of their own, docs/production.md) run beside it and stops with it: the trap ends
# it when the server exits or make is interrupted (background jobs of a script ignore Ctrl-C by themselves).
run: $(VENV)/.installed-run
	$(BIN)/python manage.py check_one_server $(MAKE) --no-print-directory serve-checked

serve-checked:
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py webhook_worker --no-reload --interval 0.2 & worker=$$!; \
	$(BIN)/python manage.py clock_ticker & ticker=$$!; \
	trap 'kill $$worker $$ticker 2>/dev/null; wait $$worker $$ticker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python -m uvicorn config.asgi:application --host $(HOST) --port $(PORT) \
		--reload $(RELOAD_DIRS) --timeout-graceful-shutdown 2

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

format: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Page/write throughput and CPU per request (SQLite and PostgreSQL) of this checkout against BASELINE (issue 39's
# start, 41bbcef; a git worktree of it outside this one), under gunicorn (BENCH_SERVERS), rounds taken in turn,
# REPEAT times over (ratios: min / median / max); beside a running Kettlewright when KETTLEWRIGHT_URL is set
# (docs/performance.md says how it was set up by hand); the same pages' CPU in-process (the steadiest figure on a
# shared machine); the GM's table page's growth per PC and per NPC on both databases; then the live table's fan-out.
BASELINE ?= 41bbcef
BENCH_SERVERS ?= gunicorn
REPEAT ?= 3
BASELINE_DIR := $(or $(TMPDIR),/tmp)/lantern-bench-baseline-$(BASELINE)
bench: $(VENV)/.installed-test
	test -d $(BASELINE_DIR) || git worktree add --detach $(BASELINE_DIR) $(BASELINE)
	$(BIN)/python bench/pages.py --baseline $(BASELINE_DIR) --server $(BENCH_SERVERS) --seconds 2 --rounds 1 \
		--repeat $(REPEAT)
	$(BIN)/python bench/inprocess.py --baseline $(BASELINE_DIR)
	$(BIN)/python bench/party_growth.py --db sqlite,postgres
	$(BIN)/python bench/fanout.py

# The same beside Kettlewright, set up from its public repository at a pinned commit by bench/kettlewright.sh
# (once, under $TMPDIR/kettlewright), served on core 0 while `make bench` runs, stopped after.
bench-kettlewright: $(VENV)/.installed-test
	bash bench/kettlewright.sh

# Requests one change costs each open page, in Debian's chromium (apt-get install chromium).
bench-live: $(VENV)/.installed-test
	$(BIN)/python bench/live_requests.py --system fell-draft
	$(BIN)/python bench/live_requests.py --system chaos-conquest --track stress --delta 1

# Issue 25, side by side with COMPARE (4480856) in one run each, short rounds: the sheet's CPU against the
# login page's and a bare view's; requests and bytes per change in every kind of open page, both checkouts;
# fan-out quiet and with the server's core kept busy, 500 on one worker and 2,000 over two.
COMPARE ?= 4480856
COMPARE_DIR := $(or $(TMPDIR),/tmp)/lantern-bench-compare
bench-compare: $(VENV)/.installed-test
	rm -rf $(COMPARE_DIR) && mkdir -p $(COMPARE_DIR) && git archive $(COMPARE) | tar -x -C $(COMPARE_DIR)
	$(BIN)/python bench/pages.py --db sqlite --baseline $(COMPARE_DIR) --seconds 2 --rounds 3 \
		--only "sheet page (owner)" --only login --only bare --only "HP change"
	$(BIN)/python bench/live_requests.py --tree $(COMPARE_DIR)
	$(BIN)/python bench/live_requests.py
	$(BIN)/python bench/fanout.py --sizes 500 --load
	$(BIN)/python bench/fanout.py --sizes 2000 --workers 2 --load

# Issue 37 (PostgreSQL): notifying writes/s at 1/4/16 writers (the journal, without any notify, the old pg_notify in
# the write), through the write service and in raw SQL; the journal's bytes and ms per write and its growth to
# 100,000 entries on both engines; many tables at a small size (20 x 7 streams; the full 300 x 7 is
# `bench/many_tables.py` with its defaults) and one table of 50 pages; then a summary of the targets.
bench-journal: $(VENV)/.installed-test
	$(BIN)/python bench/journal.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis staticfiles .test-db.sqlite3*
