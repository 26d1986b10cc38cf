# `make run` and `make test` each set up .venv on first use, so a fresh clone
# needs nothing but Python 3.11+ (and npm, optionally, for the VS Code extension).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench clean vscode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	@echo "Setting up $(VENV) (first run only; about a minute)"
	@$(BIN)/python -m pip install -qq --upgrade pip
	@$(BIN)/python -m pip install -qq -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	@$(BIN)/wfls check examples/ ; status=$$?; \
	echo; echo "wfls check exited with $$status (1 = the examples with mistakes were found)"; \
	echo; $(BIN)/wfls context examples/billing.wf.toml charge

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q
	@if command -v npm >/dev/null 2>&1 && [ -f editors/vscode/package.json ]; then \
		$(MAKE) vscode; \
	else echo "npm not found: skipping the VS Code extension"; fi

vscode:
	cd editors/vscode && npm ci --no-audit --no-fund && npm run build && npm test && npm run package

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/lsp.py
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/parse.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
