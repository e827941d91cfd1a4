# The two commands of the README do all set-up themselves on a fresh machine:
#   make plan   - create .venv, install gpufleet, run `gpufleet plan -s dev` offline
#   make test   - the same set-up, then the whole test suite
# Both also create .venv-checkov: checkov, pinned and hash-checked, in an environment of its own (it
# pins packaging<24, pulumi needs packaging>=26), where `gpufleet check` finds it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STACK  ?= dev
STAMP  := $(VENV)/.installed
CHECKOV_VENV  ?= .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed

.PHONY: plan test lint lint-workflows lint-tools check checkov install bench clean help deploy-constraints

help:
	@echo "make plan   - offline plan of the '$(STACK)' stack (STACK=prod for another)"
	@echo "make test   - run the test suite"
	@echo "make lint   - ruff, mypy, the import-layering contracts and the workflows (make lint-workflows)"
	@echo "make check  - run the policy pack and checkov on every stack (gpufleet check --all-stacks)"
	@echo "make checkov - create $(CHECKOV_VENV) with the pinned checkov of requirements-checkov.txt"
	@echo "make bench  - print the plan, policy, engine, checkov and all-stacks benchmarks"
	@echo "make deploy-constraints - regenerate policies/deploy/provider_schema.json from the installed SDKs"

# The installs take minutes on a first run: each says what it does before it starts, and pip shows
# each package as it is fetched (no --quiet), so no minute passes without output.
$(BIN)/python:
	@echo "==> [1/3] creating $(VENV)/"
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "==> [2/3] installing gpufleet, Pulumi and the AWS, Alibaba Cloud, Tencent Cloud and Kubernetes SDKs into $(VENV)/ (about 1 GB: a few minutes the first time)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	@touch $(STAMP)
	@echo "==> gpufleet installed in $(VENV)/"

# --require-hashes: every file pip fetches must match the lock file (see gpufleet/checkov/lockfile.py).
$(CHECKOV_STAMP): requirements-checkov.txt
	@echo "==> [3/3] installing checkov (pinned, hash-checked) into $(CHECKOV_VENV)/ (about a minute the first time)"
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --progress-bar on --require-hashes --no-deps -r requirements-checkov.txt
	@touch $(CHECKOV_STAMP)
	@echo "==> checkov installed in $(CHECKOV_VENV)/"

install: $(STAMP)

checkov: $(CHECKOV_STAMP)

plan: $(STAMP) $(CHECKOV_STAMP)
	@echo "==> gpufleet plan -s $(STACK) (offline: no cloud account or credentials)"
	$(BIN)/gpufleet plan -s $(STACK)
	@echo
	@echo "gpufleet is installed in $(VENV)/, not on your PATH. To run the commands of the README:"
	@echo "  . $(VENV)/bin/activate      # then: gpufleet check -s $(STACK) --format text"
	@echo "or without activating:  $(BIN)/gpufleet --help"

check: $(STAMP) $(CHECKOV_STAMP)
	$(BIN)/gpufleet check --all-stacks --format text

test: $(STAMP) $(CHECKOV_STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(MAKE) lint-workflows

# .github/workflows: actionlint (the pinned `lint` extra: `make lint-tools`; its build fetches the
# release binary and checks it against the checksums it ships) and checkov's GitHub Actions checks.
# Without actionlint only checkov runs, unless GPUFLEET_REQUIRE_ACTIONLINT is set (CI sets it).
lint-workflows: $(CHECKOV_STAMP)
	@if [ -x $(BIN)/actionlint ]; then $(BIN)/actionlint .github/workflows/*.yml; \
	elif [ -n "$$GPUFLEET_REQUIRE_ACTIONLINT" ]; then echo "actionlint missing: make lint-tools"; exit 1; \
	else echo "actionlint not installed (make lint-tools): workflows checked by checkov only"; fi
	$(CHECKOV_VENV)/bin/checkov --framework github_actions -d . --skip-download --quiet --compact

lint-tools: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,lint]'

bench: $(STAMP) $(CHECKOV_STAMP)
	$(BIN)/python bench/plan_bench.py
	$(BIN)/python bench/policy_bench.py
	$(BIN)/python bench/engine_bench.py
	$(BIN)/python bench/checkov_bench.py
	$(BIN)/python bench/allstacks_bench.py

# GF-DEPLOY-001's constraints, extracted from the pinned provider SDKs' docstrings; a test fails when
# the committed file is out of step with the installed SDKs (after a provider upgrade, run this).
deploy-constraints: $(STAMP)
	$(BIN)/python -m gpufleet.policies.deploy.generate

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) build *.egg-info .mypy_cache .ruff_cache
