# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= demo.db

.PHONY: demo test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

## demo: replay the shipped 40K example battle into a SQLite file and print what happened
demo: $(VENV)/.installed-app
	rm -f $(DB) $(DB)-wal $(DB)-shm
	$(BIN)/morale new examples/wh40k6/roster.toml --db $(DB)
	$(BIN)/morale append hive-tarsis --file examples/wh40k6/battle.ndjson --db $(DB) > /dev/null
	$(BIN)/morale replay hive-tarsis --db $(DB)
	$(BIN)/morale board hive-tarsis --db $(DB)
	$(BIN)/morale verify hive-tarsis --db $(DB)

## test: lint, then the whole test suite
test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) $(DB) $(DB)-wal $(DB)-shm .pytest_cache .ruff_cache .hypothesis
