# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= demo.db
PORT ?= 8000
# The viewer's browser tests drive Debian's Chromium through Playwright (never a downloaded browser).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo serve test bench bench-feed lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# The test extras include the app: a venv made by `make test` serves `make demo` as it is.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed-app

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[bench]'
	touch $@

$(CHROMIUM):
	@echo "installing Debian's chromium for the viewer's browser tests"
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium

## serve: the example battle over HTTP, with its viewer (tokens are printed once)
serve: $(VENV)/.installed-app
	rm -f $(DB) $(DB)-wal $(DB)-shm
	$(BIN)/morale new examples/wh40k6/roster.toml --tokens --db $(DB)
	$(BIN)/morale append hive-tarsis --file examples/wh40k6/battle.ndjson --db $(DB) > /dev/null
	$(BIN)/morale serve --db $(DB) --port $(PORT)

## demo: replay the shipped 40K example battle into a SQLite file and print what happened
demo: $(VENV)/.installed-app
	rm -f $(DB) $(DB)-wal $(DB)-shm
	$(BIN)/morale new examples/wh40k6/roster.toml --db $(DB)
	$(BIN)/morale append hive-tarsis --file examples/wh40k6/battle.ndjson --db $(DB) > /dev/null
	$(BIN)/morale replay hive-tarsis --db $(DB)
	$(BIN)/morale board hive-tarsis --db $(DB)
	$(BIN)/morale verify hive-tarsis --db $(DB)

## test: lint, then the whole test suite
test: $(VENV)/.installed-test | $(CHROMIUM)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

## bench: the benchmarks (not part of the tests); see bench/README.md. QUICK=1 for small sizes
bench: $(VENV)/.installed-bench
	$(BIN)/python bench/run.py $(if $(QUICK),--quick)

## bench-feed: an append reaching 1,000 live SSE followers on loopback (CLIENTS=, EVENTS= to change)
# bench/feed.py raises its own soft descriptor limit; the server it starts inherits it.
bench-feed: $(VENV)/.installed-test
	$(BIN)/python bench/feed.py $(if $(CLIENTS),--clients $(CLIENTS)) $(if $(EVENTS),--events $(EVENTS))

clean:
	rm -rf $(VENV) $(DB) $(DB)-wal $(DB)-shm .pytest_cache .ruff_cache .hypothesis
