# `make run` and `make test` each set up .venv on first use, so a fresh clone
# needs nothing but Python 3.11+ (and npm, optionally, for the VS Code extension).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench bench-runtime soak soak-runtime clean vscode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@$(BIN)/wfls check examples/ ; status=$$?; \
	echo; echo "wfls check exited with $$status (1 = the examples with mistakes were found)"; \
	@echo; $(BIN)/wfls context examples/billing.wf.toml charge

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
	$(MAKE) --no-print-directory bench-runtime

bench-runtime: $(STAMP)
	$(BIN)/python bench/runtime.py

# Long property runs, not part of `make test`.
soak: soak-runtime

soak-runtime: $(STAMP)
	WFLS_RUNTIME_EXAMPLES=5000 $(BIN)/python -m pytest tests/runtime/test_runtime_agreement.py -q -s \
		-k every_context

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
