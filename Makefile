# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= demo.db
PORT ?= 8000
# The viewer's browser tests drive Debian's Chromium through Playwright (never a downloaded browser):
# its headless shell, the same Blink as the browser without the browser's shell around it, which
# Playwright too runs headless by default (a quarter less CPU over the browser tests than the full
# chromium package, and a smaller install). tests/support/browser.py reads MORALE_CHROMIUM.
CHROMIUM ?= /usr/bin/chromium-headless-shell
MORALE_CHROMIUM ?= $(CHROMIUM)
export MORALE_CHROMIUM
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The store tests run on PostgreSQL too: on the server $$MORALE_TEST_PG names, or one answering on
# 127.0.0.1:5432, or else a throwaway cluster they start in a temporary folder with Debian's binaries
# (tests/support/pg.py). `make test` installs those binaries when there are none, as it does Chromium.
INITDB := $(firstword $(shell command -v initdb 2>/dev/null) $(wildcard /usr/lib/postgresql/*/bin/initdb))
# The AsyncAPI document's test (tests/test_asyncapi.py) validates it with the AsyncAPI project's own
# parser, an npm package, run on Node: `make test` installs Debian's nodejs and npm when there is no
# npm, as it does Chromium, then the parser at the version tests/asyncapi/package-lock.json pins
# (install scripts off: the parser needs none).
NPM := $(shell command -v npm 2>/dev/null)
ASYNCAPI_PARSER := tests/asyncapi/node_modules/.installed
# Every install takes its versions from the lock (exact pins for the app, test and bench extras,
# Python 3.11 on Linux); `make lock` regenerates it. pip alone reads it: uv is needed only by `make lock`.
LOCK := requirements/lock.txt
# The lowest version pyproject.toml allows of each direct dependency (the newest of the rest), for
# `make test-lowest`: the proof that the floors in pyproject.toml hold.
LOWEST := requirements/lowest.txt
LOWEST_VENV := .venv-lowest
# `make lock` alone runs uv, from a venv of its own; it resolves for Python 3.11 on Linux whatever
# the machine it runs on. UPGRADE=1 moves every pin to the newest release allowed; without it the
# pins already in the files stay where pyproject.toml still allows them.
UV_VERSION ?= 0.13.9
TOOLS := .venv-tools
UV := $(TOOLS)/bin/uv
# `make lock` runs: uv pip compile pyproject.toml --extra test --extra bench --extra mutation --python-version 3.11
#   --python-platform linux -o requirements/lock.txt (and, with --resolution lowest-direct, -o requirements/lowest.txt)
COMPILE = $(UV) pip compile pyproject.toml --extra test --extra bench --extra mutation --python-version 3.11 \
	--python-platform linux --custom-compile-command 'make lock' $(if $(UPGRADE),--upgrade)

# `make test` runs the suite on TEST_WORKERS processes (pytest-xdist), more than the two cores: much of
# a test's time is spent waiting on a server, a browser or a subprocess, and a third and fourth worker
# fill those waits. Tests are dealt out a file at a time (`--dist loadfile`, the largest files first),
# so a module's costly fixture (a README run, a built wheel, the docs' pages) is made once. (Dealing
# the console's eight whole turns apart, 2026-12-03, saved nothing and ran several browsers at once,
# whose 20 s waits then ran out now and then.) (`loadgroup`
# with xdist_group marks did not group here: pytest-xdist 3.8 on pytest 9.2 dealt a marked file's tests
# to both workers.)
# Its slowest tests, and why each is slow, are in docs/development.md; `--durations` prints them.
TEST_WORKERS ?= 4
# The suite starts hundreds of `morale` processes (the README's and the docs' commands, servers).
# Where the environment sets PYTHONDONTWRITEBYTECODE (this machine's shell does), none writes bytecode, so each
# compiled the whole app from source again: ~0.3 s a process. Compiled once here, each reads it.
BYTECODE = $(BIN)/python -m compileall -q -j 0 core events projections app testing examples/wh40k10/src > /dev/null
# The pytest plugins the suite uses, loaded by name with entry-point autoloading off: autoloading
# makes pytest rewrite the asserts of every module of each plugin's distribution (hypothesis,
# schemathesis, anyio, faker...) as it is imported, in every worker: 4-7 s of a worker's 14-21 s
# collection here. tests/test_plugins.py fails on an installed plugin neither here nor named there
# as unused. (Not test-lowest's: its older plugins are others, and it runs one process.)
PYTEST_PLUGINS = xdist.plugin _hypothesis_pytestplugin schemathesis.pytest.plugin morale.testing.plugin
PYTEST = $(BIN)/python -m pytest --disable-plugin-autoload $(PYTEST_PLUGINS:%=-p %)
# `make check`, the edit loop: the rules, the store contract on SQLite (its PostgreSQL half deselected)
# and the CLI, on WORKERS processes (pytest-xdist). None of these files has a costly module fixture, so
# their tests are dealt out one by one. Not CI: `make test` runs everything.
WORKERS ?= 4
CHECK_TESTS = $(CHECK_RULES) tests/test_store.py $(CHECK_CLI)
CHECK_RULES = $(wildcard tests/test_wh40k6_*.py tests/test_wh40k3_*.py) tests/test_wfb8_panic.py \
	tests/test_wfb8_flee_rally.py tests/test_wfb8_combat.py tests/test_wfb8_causes.py tests/test_gdb_modifiers.py \
	tests/test_gdb_results.py tests/test_gdb_tables.py tests/test_gdb_triggers.py tests/test_referee.py \
	tests/test_wfb8_pinned.py tests/test_gdb_results_edges.py tests/test_gdb_triggers_edges.py \
	tests/test_gdb_tables_profile_pinned.py tests/test_gdb_brigade_pinned.py \
	tests/test_due_results.py tests/test_conformance.py
CHECK_CLI = tests/test_cli.py tests/test_rules_cli.py

.PHONY: demo serve test check catalogues typecheck bench bench-feed bench-pg bench-soak bench-console bench-cli mutate lint clean lock test-lowest postgresql node

# Every install is uv's (pinned above, in $(TOOLS)), from the same lock: pip took about 90 of a fresh
# clone's `make test` seconds here to install the test extra, uv about a quarter of that. The venvs
# are Python's own (`-m venv`), pip included at the lock's version: the docs' pages run pip in them.
# (`--without-pip`: Python's ensurepip took 3.9 s of a fresh clone's venv here, installing a pip that
# uv replaced at once with the lock's.)
# --compile-bytecode: uv writes no bytecode by default, and where PYTHONDONTWRITEBYTECODE is set (this
# machine's shell sets it) no process writes any, so each of the suite's hundreds of `morale`
# processes compiled rich, Typer, msgspec's Python half... from source again: 0.39 s of a board read
# here, 0.14 s with them compiled once at install.
INSTALL = $(UV) pip install -q --compile-bytecode --python

$(BIN)/python: | $(UV)
	$(PYTHON) -m venv --without-pip $(VENV)
	$(INSTALL) $(BIN)/python -c $(LOCK) --upgrade pip

# A stamp depends on the lock too, so a changed lock reinstalls.
$(VENV)/.installed-app: pyproject.toml $(LOCK) | $(BIN)/python
	$(INSTALL) $(BIN)/python -c $(LOCK) -e .
	touch $@

# The games written as packages of their own (docs/writing-a-ruleset.md): each folder of examples/
# with a pyproject.toml. The suite runs their tests too (testpaths), so every venv that runs the tests
# installs them, built with the venv's own setuptools (the test extra locks one): no network needed.
GAMES := $(patsubst %/pyproject.toml,%,$(wildcard examples/*/pyproject.toml))
define install_games
	for game in $(GAMES); do $(INSTALL) $(1)/bin/python -c $(2) --no-build-isolation -e $$game || exit 1; done
endef

# The test extras include the app: a venv made by `make test` serves `make demo` as it is.
$(VENV)/.installed-test: pyproject.toml $(LOCK) $(GAMES:%=%/pyproject.toml) | $(BIN)/python
	$(INSTALL) $(BIN)/python -c $(LOCK) -e '.[test]'
	$(call install_games,$(VENV),$(LOCK))
	touch $@ $(VENV)/.installed-app

$(VENV)/.installed-bench: pyproject.toml $(LOCK) | $(BIN)/python
	$(INSTALL) $(BIN)/python -c $(LOCK) -e '.[bench]'
	touch $@

$(VENV)/.installed-mutation: pyproject.toml $(LOCK) $(GAMES:%=%/pyproject.toml) | $(BIN)/python
	$(INSTALL) $(BIN)/python -c $(LOCK) -e '.[test,mutation]'
	$(call install_games,$(VENV),$(LOCK))
	touch $@ $(VENV)/.installed-test $(VENV)/.installed-app

# The type check with the venv $(1): mypy reads the packages as morale.*, which only the editable
# install's import hook maps to the folders, so links under the venv give it the same tree first
# (what to check, and how strictly, is [tool.mypy] in pyproject.toml).
define typecheck
	mkdir -p $(1)/typed/morale
	for package in core events projections app examples; do ln -sfn $(CURDIR)/$$package $(1)/typed/morale/$$package; done
	MYPYPATH=$(1)/typed $(1)/bin/mypy
endef

$(LOWEST_VENV)/.installed: pyproject.toml $(LOWEST) $(GAMES:%=%/pyproject.toml) | $(UV)
	rm -rf $(LOWEST_VENV)
	$(PYTHON) -m venv --without-pip $(LOWEST_VENV)
	$(INSTALL) $(LOWEST_VENV)/bin/python -c $(LOWEST) --upgrade pip
	$(INSTALL) $(LOWEST_VENV)/bin/python -c $(LOWEST) -e '.[test,bench]'
	$(call install_games,$(LOWEST_VENV),$(LOWEST))
	touch $@

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install -q 'uv==$(UV_VERSION)'

$(CHROMIUM):
	@echo "installing Debian's chromium-headless-shell for the viewer's browser tests"
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium-headless-shell

node:
ifeq ($(NPM),)
	@echo "installing Debian's nodejs and npm for the AsyncAPI parser the feed's document is checked with"
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs npm
endif

$(ASYNCAPI_PARSER): tests/asyncapi/package.json tests/asyncapi/package-lock.json | node
	npm ci --prefix tests/asyncapi --no-audit --no-fund --ignore-scripts
	touch $@

postgresql:
ifeq ($(INITDB),)
	@echo "installing Debian's postgresql for the store tests' throwaway cluster"
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql
endif

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

## test: lint, the type check, then the whole test suite on TEST_WORKERS processes
test: $(VENV)/.installed-test | $(CHROMIUM) postgresql $(ASYNCAPI_PARSER)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(call typecheck,$(VENV))
	$(BYTECODE)
	$(PYTEST) -n $(TEST_WORKERS) --dist loadfile --durations=20

## catalogues: extract the words from the code into each messages.ru.po, and compile them (.mo, the console's .json)
catalogues: $(VENV)/.installed-test
	$(BIN)/python tools/catalogues.py

## check: the edit loop, under a minute: the rules, the store contract on SQLite and the CLI (no lint; not CI)
check: $(VENV)/.installed-test
	$(BYTECODE)
	$(PYTEST) -n $(WORKERS) -k "not postgresql" $(CHECK_TESTS)

## typecheck: mypy, strict, on the referee and the log (core/, events/); part of `make test`
typecheck: $(VENV)/.installed-test
	$(call typecheck,$(VENV))

## test-lowest: lint, the type check, the tests and the quick benchmarks on the lowest versions pyproject.toml allows (not in `make test`)
test-lowest: $(LOWEST_VENV)/.installed | $(CHROMIUM) postgresql $(ASYNCAPI_PARSER)
	$(LOWEST_VENV)/bin/ruff check .
	$(LOWEST_VENV)/bin/ruff format --check .
	$(call typecheck,$(LOWEST_VENV))
	$(LOWEST_VENV)/bin/python -m pytest -x
	$(LOWEST_VENV)/bin/python bench/run.py --quick

## lock: regenerate requirements/lock.txt and requirements/lowest.txt from pyproject.toml (UPGRADE=1 for the newest)
lock: | $(UV)
	$(COMPILE) -o $(LOCK)
	@# uv would keep the old file's pins as preferences, and they outrank lowest-direct: start afresh.
	rm -f $(LOWEST)
	$(COMPILE) --resolution lowest-direct -o $(LOWEST)

## bench: the benchmarks (not part of the tests), each target beside its figure, met or not: the engine, the command line, PostgreSQL and two nodes; see bench/README.md. QUICK=1 for small sizes
bench: $(VENV)/.installed-bench | postgresql
	$(BIN)/python bench/run.py $(if $(QUICK),--quick)
	$(BIN)/python bench/cli.py $(if $(QUICK),--quick)
	$(BIN)/python bench/pg.py $(if $(QUICK),--quick)

## bench-feed: an append reaching 1,000 live SSE followers on loopback (CLIENTS=, EVENTS= to change)
# bench/feed.py raises its own soft descriptor limit; the server it starts inherits it.
bench-feed: $(VENV)/.installed-test
	$(BIN)/python bench/feed.py $(if $(CLIENTS),--clients $(CLIENTS)) $(if $(EVENTS),--events $(EVENTS))

## bench-pg: PostgreSQL and two nodes (bench/pg.py, on the server $MORALE_BENCH_PG names or the one on 127.0.0.1:5432); QUICK=1 for small sizes
bench-pg: $(VENV)/.installed-bench | postgresql
	$(BIN)/python bench/pg.py $(if $(QUICK),--quick)

## bench-soak: two PostgreSQL nodes for 30 minutes (MINUTES= to change): 30 writers, 20 followers, delivery and each node's memory over time
bench-soak: $(VENV)/.installed-bench | postgresql
	$(BIN)/python bench/soak.py $(if $(MINUTES),--minutes $(MINUTES))

## bench-cli: morale --version and the read commands on the 100,000-event battle, each a fresh process (QUICK=1: 5,000)
bench-cli: $(VENV)/.installed-app
	$(BIN)/python bench/cli.py $(if $(QUICK),--quick)

## bench-console: the console's first board in Chromium, the example and the 100,000-event battle (QUICK=1: 5,000)
bench-console: $(VENV)/.installed-test | $(CHROMIUM)
	$(BIN)/python bench/console.py $(if $(QUICK),--quick)

## mutate: mutation testing of the rules (not part of the tests), a seeded sample of each module's mutants;
## see MUTATION.md. SAMPLE=0 for every mutant, MODULES="core/rulesets/wh40k/sixth.py ..." for some; WORK=dir keeps the results there, and a stopped run goes on from them
mutate: $(VENV)/.installed-mutation
	$(BIN)/python mutation/run.py $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(WORK),--work $(WORK)) $(MODULES)

clean:
	rm -rf $(VENV) $(LOWEST_VENV) $(TOOLS) tests/asyncapi/node_modules $(DB) $(DB)-wal $(DB)-shm $(DB).key .pytest_cache .ruff_cache .hypothesis
