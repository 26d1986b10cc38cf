# `make run` and `make test` each set up .venv on first use, so a fresh clone
# needs nothing but Python 3.11+ (and npm, optionally, for the VS Code extension).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed

.PHONY: bytecode run test docs docs-serve lint format speed-lines bench bench-features bench-instructions bench-peers bench-scaling bench-latency bench-edit-kinds soak-memory soak-sessions bench-plot bench-runtime bench-export bench-pathological soak soak-runtime clean vscode vscode-deps e2e-vscode e2e-emacs graph-assets

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	@echo "Setting up $(VENV) (first run only; about a minute)"
	@$(BIN)/python -m pip install -qq --upgrade pip
	@$(BIN)/python -m pip install -qq -e '.[test]'
	@touch $(STAMP)

run: $(STAMP) bytecode
	@$(BIN)/wfls check examples/ ; status=$$?; \
	echo; echo "wfls check exited with $$status (1 = the examples with mistakes were found)"; \
	echo; $(BIN)/wfls context examples/billing.wf.toml charge

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/wfls test examples
	$(BIN)/wfls fmt --check examples
	$(BIN)/python -m pytest -q
	@$(MAKE) --no-print-directory docs
	@if command -v npm >/dev/null 2>&1 && [ -f editors/vscode/package.json ]; then \
		$(MAKE) --no-print-directory vscode; \
	else echo "npm not found: skipping the VS Code extension"; fi
	@if reason=$$(editors/vscode/e2e/run.sh --check); then \
		$(MAKE) --no-print-directory e2e-vscode; \
	else echo "skipping the VS Code end-to-end test: $$reason"; fi

# npm's registry flakes now and then: `npm ci` gets three tries.
vscode-deps:
	@cd editors/vscode && for try in 1 2 3; do \
		npm ci --no-audit --no-fund --loglevel=error && exit 0; \
		echo "npm ci failed (try $$try of 3)"; sleep $$((try * 10)); \
	done; exit 1

vscode: vscode-deps
	cd editors/vscode && npm run --silent build && npm test && npm run --silent package

# The graph view (editors/vscode/src/graph/, with Graphviz inside) that `wfls graph
# --format html` inlines: built and copied into server/wfls/assets/, which is committed
# so that the Python package needs no npm. `make vscode` fails while the copy is stale.
graph-assets: vscode-deps
	cd editors/vscode && node esbuild.mjs --assets

# The packaged extension in a real VS Code (code-server) driven by a headless
# Chromium; installs both into $${XDG_CACHE_HOME:-~/.cache}/wfls-e2e on first use.
e2e-vscode: $(STAMP)
	@[ -d editors/vscode/node_modules ] || $(MAKE) --no-print-directory vscode-deps
	WFLS_E2E_PYTHON=$(abspath $(BIN)/python) editors/vscode/e2e/run.sh $(abspath $(BIN)/wfls)

# editors/emacs/wfls.el in a headless Emacs, with eglot and with lsp-mode (also part of
# `make test`; skipped without `emacs`, which .ci/run installs from Debian's packages).
e2e-emacs: $(STAMP)
	$(BIN)/python -m pytest -q -rs tests/test_emacs.py

# The documentation site (mkdocs.yml) into site/, every warning an error (a broken
# link or anchor among them); its log is shown only when it fails (mkdocs' --quiet
# would hide the warnings from --strict too).
docs: $(STAMP)
	@log=$$(NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict 2>&1) || { echo "$$log"; exit 1; }

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a 127.0.0.1:8000

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Each benchmark target writes its figures into its section of docs/performance.md.
bench: $(STAMP) bytecode
	$(BIN)/python bench/lsp.py --section lsp
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/parse.py
	$(MAKE) --no-print-directory bench-features
	$(MAKE) --no-print-directory bench-runtime
	$(MAKE) --no-print-directory bench-workspace

# Semantic tokens, symbols, hints, folding and selection on a warm 2,000-node snapshot,
# and the semantic index build they share.
bench-features: $(STAMP) bytecode
	$(BIN)/python bench/features.py

bench-runtime: $(STAMP)
	$(BIN)/python bench/runtime.py

# 1,000 generated documents, one child and 50 callers: indexing, and a child edit.
bench-workspace: $(STAMP) bytecode
	$(BIN)/python bench/workspace.py

# `wfls export` to TOML and to JSON against `wfls check`, on 5,000 nodes in either syntax.
bench-export: $(STAMP) bytecode
	$(BIN)/python bench/export.py

# Instructions executed by each stage of `wfls check` on 2,000 nodes (valgrind's callgrind):
# a figure that does not move with the machine's speed. 5-6 minutes.
bench-instructions: $(STAMP) bytecode
	$(BIN)/python bench/instructions.py

# Every pathological document at full size (20 MB, 100,000 nodes, 10,000-deep nesting, ...),
# each in a fresh process: outcome, wall time, peak RSS. About six minutes; needs about 4 GB.
bench-pathological: $(STAMP)
	$(BIN)/python bench/pathological.py

# Long property runs, not part of `make test`.
soak: soak-runtime soak-memory soak-sessions

# 5,000 generated workflows against the static analysis, then wfls run's memory on a
# million steps (bench/runtime_memory.py: ten to twenty minutes).
soak-runtime: $(STAMP)
	WFLS_RUNTIME_EXAMPLES=5000 $(BIN)/python -m pytest tests/runtime/test_runtime_agreement.py -q -s \
		-k every_context
	$(BIN)/python bench/runtime_memory.py

# The extra the benchmarks need beyond the tests (matplotlib, py-spy).
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# Servers started by the benchmarks load wfls from bytecode, as an installed package
# does: without it (PYTHONDONTWRITEBYTECODE, a read-only tree) every start compiles
# the sources again, which adds about 0.4 s to initialize.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q wf_core server/wfls >/dev/null

# wfls beside yaml-language-server and Taplo (installed with npm into a cache folder
# outside the repository, reused when present): the table at 2,000 nodes / 2,169 lines,
# then every server at about 2k to 22k lines for the plot; results in bench/results/.
bench-peers: $(BENCH_STAMP) bytecode
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm not found: skipping the peer benchmark"; exit 0; fi; \
	peers=$$(sh bench/peers/install.sh) && \
	$(BIN)/python bench/peers.py --peers "$$peers" --scale 2169 5630 11230 22430

# wfls from 500 to 16,000 nodes, both sync kinds, and wfls check on 14,000 nodes.
# Then every request kind at 5,000 and 16,000 nodes (bench-latency), every kind of edit
# beside yaml-language-server (bench-edit-kinds) and their plot, docs/images/latency.png.
bench-scaling: $(BENCH_STAMP) bytecode
	$(BIN)/python bench/lsp.py 500 1000 2000 4000 8000 16000 --sync both \
		--edits 8 --requests 15 --check 14000
	$(MAKE) --no-print-directory bench-latency bench-edit-kinds
	$(BIN)/python bench/plot.py --latency

# The first request after open and after each edit, of every kind, with and without 4,000
# findings; workspace/symbol; export against check; wfls run over 1,000,000 items. A trial
# at small sizes writes into a copy of the page: make bench-latency LATENCY_ARGS="300 600
# --edits 2 --findings 100 --symbol-nodes 300 --symbol-documents 40 --run-items 3000
# --page /tmp/performance.md" (EDIT_KINDS_ARGS likewise: "300 600 --edits 2 --page ...").
LATENCY_ARGS ?= 5000 16000 --sync both --edits 12 --findings 4000
bench-latency: $(BENCH_STAMP) bytecode
	$(BIN)/python bench/latency.py $(LATENCY_ARGS)

# Edit → diagnostics for eight kinds of edit, wfls beside yaml-language-server (with npm;
# wfls alone without it).
EDIT_KINDS_ARGS ?= 2000 16000 --edits 5
bench-edit-kinds: $(BENCH_STAMP) bytecode
	@if command -v npm >/dev/null 2>&1; then \
		peers=$$(sh bench/peers/install.sh) && \
		$(BIN)/python bench/edit_kinds.py --peers "$$peers" $(EDIT_KINDS_ARGS); \
	else echo "npm not found: wfls alone"; $(BIN)/python bench/edit_kinds.py $(EDIT_KINDS_ARGS); fi

# One session of 10,000 edits and requests; prints the server's memory every 500.
soak-memory: $(BENCH_STAMP) bytecode
	$(BIN)/python bench/lsp.py --soak 10000

# 30,000 random steps (opens, edits at random ranges, every request, bad params, hostile
# documents, close/reopen races, edits racing a request) in one server process, each
# checked, its texts and diagnostics compared with the client's and wfls check's every 50
# steps; prints the counts (crashes, tracebacks, disagreements) and the peak memory.
soak-sessions: $(STAMP)
	$(BIN)/python bench/soak_session.py --steps 30000

# The count of production lines that exist only for speed, into docs/architecture.md.
speed-lines: $(STAMP)
	$(BIN)/python bench/speed_lines.py

# docs/images/bench.png from the latest results of bench-peers and bench-scaling.
bench-plot: $(BENCH_STAMP)
	$(BIN)/python bench/plot.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build site *.egg-info
