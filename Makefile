# The two commands of the README do all set-up themselves on a fresh machine:
#   make plan   - create .venv, install gpufleet, run `gpufleet plan -s dev` offline
#   make test   - the same set-up, then the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STACK  ?= dev
STAMP  := $(VENV)/.installed

.PHONY: plan test lint check install bench clean help

help:
	@echo "make plan   - offline plan of the '$(STACK)' stack (STACK=prod for another)"
	@echo "make test   - run the test suite"
	@echo "make lint   - ruff, mypy and the import-layering contracts"
	@echo "make check  - run the policy pack on every stack (gpufleet check --all-stacks)"
	@echo "make bench  - print the plan, policy and engine benchmarks"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

plan: $(STAMP)
	$(BIN)/gpufleet plan -s $(STACK)

check: $(STAMP)
	$(BIN)/gpufleet check --all-stacks --format text

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/plan_bench.py
	$(BIN)/python bench/policy_bench.py
	$(BIN)/python bench/engine_bench.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
