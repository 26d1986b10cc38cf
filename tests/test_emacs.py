"""Emacs as a real client: editors/emacs/wfls.el with eglot and with lsp-mode.

``emacs --batch`` opens a copy of the billing example with three mistakes in it,
through ``wfls-toml-mode`` and the client the test names, and drives the client's
own commands as a user would: the diagnostics it then holds (compared with what
``wfls check --format json`` reports for the same file), the node context
(``wfls-show-context``), two quick fixes, a run on the example's input
(``wfls-run``), completion after ``context.foreach.`` with the chosen item's edit
applied, and a rename of a loop and back. A raw inlay-hint request through the
client's connection shows that the server received the customized settings.

Emacs is not an event loop the test can await: each wait polls its condition while
Emacs reads the server's output, and runs the idle timers an interactive Emacs would
run while the user pauses (eglot and flymake send changes and start checks from
them). Every wait is bounded and the process has a timeout, so a broken server fails
the test instead of hanging it. Without ``emacs`` on the PATH, or without the
client's package, the test is skipped (``.ci/run`` installs Debian's packages).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from wfls.cli import main

ROOT = Path(__file__).parents[1]
WFLS_EL = ROOT / "editors" / "emacs" / "wfls.el"
EMACS = shutil.which("emacs")
INSTALL = "apt-get install emacs-nox elpa-eglot elpa-lsp-mode, as .ci/run does"

pytestmark = pytest.mark.skipif(EMACS is None, reason=f"emacs is not on the PATH ({INSTALL})")

# What both clients' scripts share: the parameters, the waits, the result.
PRELUDE = r"""
;;; -*- lexical-binding: t -*-
(package-initialize) ; the installed packages' autoloads, as an interactive Emacs has them
(require 'json)
(defvar wfls-test-params
  (with-temp-buffer
    (insert-file-contents (getenv "WFLS_TEST_PARAMS"))
    (json-parse-buffer :object-type 'alist :array-type 'list)))
(defun wfls-test-param (key) (alist-get key wfls-test-params))
(defvar wfls-test-out (make-hash-table :test 'equal))
(defun wfls-test-put (key value) (puthash (symbol-name key) value wfls-test-out))

(defun wfls-test-idle ()
  "Run the idle timers, as Emacs does while the user pauses."
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(defun wfls-test-wait (condition)
  "CONDITION's value once it is true, reading the server's output meanwhile; nil
after 30 seconds."
  (let ((deadline (+ (float-time) 30)) value)
    (while (and (not (setq value (funcall condition))) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (wfls-test-idle))
    value))

(defun wfls-test-goto (place)
  "Go to PLACE, (LINE COLUMN): a 1-based line, a 0-based column, after a pause
(in which eglot sends the changes it holds back)."
  (wfls-test-idle)
  (goto-char (point-min))
  (forward-line (1- (car place)))
  (forward-char (cadr place)))

(defun wfls-test-line ()
  (buffer-substring-no-properties (line-beginning-position) (line-end-position)))

(defun wfls-test-text ()
  (buffer-substring-no-properties (point-min) (point-max)))

(defun wfls-test-code-action (place title)
  "Apply the quick fix TITLE at PLACE, picked as the user picks one by name."
  (wfls-test-goto place)
  (let ((completing-read-function (lambda (&rest _) title))
        (last-nonmenu-event ?\r)) ; a keyboard command: no popup menu
    (wfls-test-apply-quickfix))
  (wfls-test-line))

(defun wfls-test-complete (place end)
  "The labels of the completion at PLACE, once the text up to column END is
deleted; then accepts the item labelled \"orders.v2\" and answers the line."
  (wfls-test-goto place)
  (delete-region (point) (+ (point) (- end (cadr place))))
  (let* ((capf (wfls-test-capf))
         (table (nth 2 capf))
         (exit (plist-get (nthcdr 3 capf) :exit-function))
         (items (all-completions (buffer-substring (nth 0 capf) (nth 1 capf)) table))
         (labels (mapcar #'wfls-test-label items))
         (chosen (seq-find (lambda (item) (equal (wfls-test-label item) "\"orders.v2\"")) items)))
    (wfls-test-put 'labels (vconcat labels))
    (when chosen ; as `completion-at-point' does when the user picks it
      (delete-region (nth 0 capf) (nth 1 capf))
      (insert chosen)
      (funcall exit chosen 'finished))
    (wfls-test-put 'completed (wfls-test-line))))

(defun wfls-test-rename (place name)
  (wfls-test-goto place)
  (wfls-test-rename-at-point name)
  (wfls-test-text))

(defun wfls-test-run ()
  "Open the document, then every step of the session; the result is written whatever
happens, and Emacs exits."
  (condition-case err
      (progn
        (find-file (wfls-test-param 'document))
        (wfls-test-put 'mode (symbol-name major-mode))
        (wfls-test-put 'json_mode
                       (symbol-name (assoc-default "approvals.wf.json" auto-mode-alist
                                                   #'string-match)))
        (wfls-test-start) ; eglot goes on in the background after `eglot-sync-connect'
        (wfls-test-put 'attached (and (wfls-test-wait #'wfls-test-attached) t))
        (when (gethash "attached" wfls-test-out)
          (wfls-test-session)))
    (error (wfls-test-put 'error (error-message-string err))))
  (with-temp-file (wfls-test-param 'result)
    (insert (json-serialize wfls-test-out :null-object nil :false-object :json-false)))
  (kill-emacs 0))

(defun wfls-test-session ()
  (wfls-test-put 'diagnostics (vconcat (wfls-test-wait #'wfls-test-diagnostics)))
  ;; The settings the server received: owner-stack hints, off by default.
  (wfls-test-put 'hints (vconcat (wfls-test-inlay-hints)))

  (condition-case refused
      (wfls-run (wfls-test-param 'input))
    (user-error (wfls-test-put 'refused (error-message-string refused))))

  (wfls-test-goto (wfls-test-param 'node))
  (with-current-buffer (wfls-show-context)
    (wfls-test-put 'context (wfls-test-text)))

  (pcase-dolist (`(,place ,title) (wfls-test-param 'fixes))
    (wfls-test-put 'fixed (vconcat (gethash "fixed" wfls-test-out)
                                   (list (wfls-test-code-action place title)))))
  ;; Run right away, no pause: the server must run the buffer with both fixes.
  (with-current-buffer (wfls-run (wfls-test-param 'input))
    (wfls-test-put 'trace (wfls-test-text))
    ;; From the trace buffer: the workflow it is the trace of runs again.
    (wfls-test-put 'rerun (buffer-name (wfls-run (wfls-test-param 'input)))))
  (wfls-test-put 'cleared (and (wfls-test-wait (lambda () (null (wfls-test-diagnostics)))) t))

  (let ((original (wfls-test-text)))
    (wfls-test-complete (wfls-test-param 'loop) (wfls-test-param 'loop_end))
    (erase-buffer)
    (insert original))

  (wfls-test-put 'renamed (wfls-test-rename (wfls-test-param 'rename) "orders"))
  (wfls-test-put 'renamed_back (wfls-test-rename (wfls-test-param 'rename) "orders.v2"))

  ;; A JSON workflow of the same folder: the same server, positions in JSON.
  (let ((server (wfls-test-attached)))
    (find-file (wfls-test-param 'json_document))
    (wfls-test-put 'json_mode_opened (symbol-name major-mode))
    (wfls-test-open-other)
    (wfls-test-put 'json_same_server (eq (wfls-test-wait #'wfls-test-attached) server))
    (wfls-test-goto (wfls-test-param 'json_node))
    (with-current-buffer (wfls-show-context)
      (wfls-test-put 'json_context (wfls-test-text)))))
"""

EGLOT = r"""
(require 'eglot)
(load (wfls-test-param 'wfls_el) nil t)
(setq wfls-server-command (wfls-test-param 'server)
      wfls-inlay-hints-owner-stacks t)

(defun wfls-test-start () (call-interactively #'eglot))
(defun wfls-test-open-other () nil) ; eglot manages the buffers of its modes it opens
(defun wfls-test-attached () (and (wfls--eglot-p) (eglot-current-server)))

(defun wfls-test-diagnostics ()
  "(LINE COLUMN CODE) of each diagnostic flymake holds from eglot."
  (mapcar (lambda (diagnostic)
            (let ((lsp (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data diagnostic)))))
              (save-excursion
                (goto-char (flymake-diagnostic-beg diagnostic))
                (vector (line-number-at-pos) (current-column) (plist-get lsp :code)))))
          (flymake-diagnostics)))

(defun wfls-test-inlay-hints ()
  (mapcar (lambda (hint) (format "%s" (plist-get hint :label)))
          (jsonrpc-request (eglot-current-server) :textDocument/inlayHint
                           (list :textDocument (eglot--TextDocumentIdentifier)
                                 :range (list :start '(:line 0 :character 0)
                                              :end (eglot--pos-to-lsp-position (point-max)))))))

(defun wfls-test-apply-quickfix ()
  (eglot-code-actions (point) (1+ (point)) "quickfix" t))

(defun wfls-test-capf () (eglot-completion-at-point))
(defun wfls-test-label (item) (plist-get (get-text-property 0 'eglot--lsp-item item) :label))
(defun wfls-test-rename-at-point (name) (eglot-rename name))

(wfls-test-run)
"""

LSP_MODE = r"""
(require 'lsp-mode)
(setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
      lsp-enable-snippet nil
      lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil
      lsp-modeline-diagnostics-enable nil
      lsp-lens-enable nil
      lsp-completion-provider :none
      lsp-diagnostics-provider :none
      lsp-keep-workspace-alive nil)
(load (wfls-test-param 'wfls_el) nil t)
(setq wfls-server-command (wfls-test-param 'server)
      wfls-inlay-hints-owner-stacks t)
;; lsp-mode asks once which folder is the project: the user imports it.
(lsp-workspace-folders-add (file-name-directory (wfls-test-param 'document)))

(defun wfls-test-start () (lsp))
(defun wfls-test-open-other () (lsp))
(defun wfls-test-attached ()
  (seq-find (lambda (workspace) (eq (lsp--workspace-status workspace) 'initialized))
            (lsp-workspaces)))

(defun wfls-test-diagnostics ()
  "(LINE COLUMN CODE) of each diagnostic lsp-mode holds for the buffer."
  (mapcar (lambda (diagnostic)
            (let ((start (lsp:range-start (lsp:diagnostic-range diagnostic))))
              (vector (1+ (lsp:position-line start)) (lsp:position-character start)
                      (lsp:diagnostic-code? diagnostic))))
          (gethash (lsp--fix-path-casing buffer-file-name) (lsp-diagnostics t))))

(defun wfls-test-inlay-hints ()
  (mapcar (lambda (hint) (format "%s" (lsp-get hint :label)))
          (lsp-request "textDocument/inlayHint"
                       (list :textDocument (lsp--text-document-identifier)
                             :range (list :start '(:line 0 :character 0)
                                          :end (lsp-point-to-position (point-max)))))))

(defun wfls-test-apply-quickfix () (lsp-execute-code-action-by-kind "quickfix"))
(defun wfls-test-capf () (lsp-completion-at-point))
(defun wfls-test-label (item) (lsp-get (get-text-property 0 'lsp-completion-item item) :label))
(defun wfls-test-rename-at-point (name) (lsp-rename name))

(wfls-test-run)
"""

TYPO = "customers.item.nmae"
OUTCOME = 'outcome = "dnoe"'


@cache
def _has(feature: str) -> bool:
    """Whether ``emacs --batch`` (with the packages the system installs) has ``feature``."""
    assert EMACS is not None
    probe = f'(kill-emacs (if (locate-library "{feature}") 0 1))'
    found = subprocess.run([EMACS, "--batch", "-q", "--eval", probe], capture_output=True)
    return found.returncode == 0


def _place(text: str, offset: int) -> list[int]:
    """1-based line and 0-based column (in characters) of an offset."""
    return [text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1)]


def _check_json(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    capsys.readouterr()
    main(["check", "--format", "json", str(path)])
    return json.loads(capsys.readouterr().out)


def _session(tmp_path: Path, script: str, capsys: pytest.CaptureFixture[str]) -> dict:
    """Run the script on a workspace holding the billing example with three mistakes:
    the parameters it needs, its result, and what wfls itself says of the same files."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    original = (ROOT / "examples" / "billing.wf.toml").read_text(encoding="utf-8")
    text = original.replace("customers.item.name", TYPO).replace(
        'outcome = "done", to = "__end__"', f'{OUTCOME}, to = "__end__"'
    )
    document = workspace / "billing.wf.toml"
    document.write_text(text, encoding="utf-8")
    shutil.copy(ROOT / "examples" / "billing.input.json", workspace / "input.json")
    json_document = workspace / "approvals.wf.json"
    shutil.copy(ROOT / "examples" / "approvals.wf.json", json_document)
    json_text = json_document.read_text(encoding="utf-8")

    loop = text.index('context.foreach."orders.v2".item\'') + len("context.foreach.")
    typo = text.index(TYPO) + len("customers.item.")
    outcome = text.index(OUTCOME) + len('outcome = "')
    params = {
        "wfls_el": str(WFLS_EL),
        "server": [str(Path(sys.executable).parent / "wfls"), "serve"],
        "document": str(document),
        "input": str(workspace / "input.json"),
        "result": str(tmp_path / "result.json"),
        "node": _place(text, text.index('id = "charge"')),
        "fixes": [
            [_place(text, typo), "Change 'nmae' to 'name'"],
            [_place(text, outcome), "Change 'dnoe' to 'done'"],
        ],
        "loop": _place(text, loop),
        "loop_end": _place(text, text.index("'", loop))[1],
        "rename": _place(text, text.index('id = "orders.v2"') + len('id = "o')),
        "json_document": str(json_document),
        "json_node": _place(json_text, json_text.index('"id": "requests"')),
    }
    (tmp_path / "params.json").write_text(json.dumps(params), encoding="utf-8")
    (tmp_path / "driver.el").write_text(PRELUDE + script, encoding="utf-8")
    home = tmp_path / "home"  # no user configuration; the clients' files go here
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "WFLS_TEST_PARAMS": str(tmp_path / "params.json")}
    assert EMACS is not None
    run = subprocess.run(
        [EMACS, "--batch", "-q", "-l", str(tmp_path / "driver.el")],
        cwd=workspace,
        env=env,
        timeout=120,
        capture_output=True,
        text=True,
    )
    result = tmp_path / "result.json"
    assert result.exists(), run.stderr[-3000:]
    out = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in out, (out["error"], run.stderr[-3000:])

    capsys.readouterr()
    main(["context", str(document), "charge", "--json"])
    out["cli_context"] = json.loads(capsys.readouterr().out)
    out["cli_check"] = _check_json(document, capsys)
    main(["context", str(json_document), "requests", "--json"])
    out["cli_json_context"] = json.loads(capsys.readouterr().out)
    out["original"] = original
    return out


def _check_session(out: dict, *, null: object) -> None:
    """What both clients must show. ``null`` is the JSON value the client reads as it
    reads null (both are nil to it), which its context view then shows as null."""
    assert out["mode"] == "wfls-toml-mode"
    assert out["json_mode"] == "wfls-json-mode"
    assert out["attached"] is True

    # The diagnostics: the same places and codes as wfls check, three of them.
    expected = sorted(
        [d["start"]["line"], d["start"]["column"] - 1, d["code"]] for d in out["cli_check"]
    )
    assert len(expected) == 3
    assert sorted(out["diagnostics"]) == expected

    # The owner stack of a node inside both loops, from the customized settings.
    assert "customers > orders.v2" in out["hints"]

    # The context view is what `wfls context FILE NODE --json` prints.
    context = json.loads(out["context"])
    assert context["owner_stack"] == ["customers", "orders.v2"]
    assert context == _as_null(out["cli_context"], null)

    assert out["fixed"] == [
        '  { target = "customer", path = "context.foreach.customers.item.name" },',
        '  { from = "customers", outcome = "done", to = "__end__" },',
    ]
    assert out["cleared"] is True

    # A run of the document with its mistakes is refused, and the user told why.
    assert out["refused"] == (
        "wfls: the workflow has 3 error(s); fix them before running it (first:"
        " undeclared_edge_outcome: outcome 'dnoe' is not declared by node 'customers')"
    )
    trace = out["trace"].splitlines()
    assert trace[0].startswith("workflow 'billing', run with stand-in handlers (")
    assert "completed with outcome 'ok'" in trace
    assert any(line.startswith('#3 charge (node) [customers > "orders.v2"] → ok') for line in trace)
    assert out["rerun"] == "*wfls trace: billing.wf.toml*"

    # Both loops offered after `context.foreach.`, the dotted id quoted; accepting it
    # inserts it quoted as it is in a literal string.
    assert {"customers", '"orders.v2"'} <= set(out["labels"])
    assert out["completed"] == '  { target = "order", path = \'context.foreach."orders.v2"\' },'

    # Renamed everywhere (the quoted path segment now bare), then back.
    original = out["original"]
    renamed = original.replace('context.foreach."orders.v2".item', "context.foreach.orders.item")
    renamed = renamed.replace('"orders.v2"', '"orders"')
    assert renamed != original and '"orders.v2"' not in renamed
    assert out["renamed"] == renamed
    assert out["renamed_back"] == original

    assert out["json_mode_opened"] == "wfls-json-mode"
    assert out["json_same_server"] is True
    json_context = json.loads(out["json_context"])
    assert json_context["node"] == "requests"
    assert json_context == _as_null(out["cli_json_context"], null)
    # The context of a loop at the top: empty objects, false values.
    assert '"properties": {}' in json.dumps(out["cli_json_context"])
    assert json_context != out["cli_json_context"]


def test_eglot(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    if not _has("eglot"):
        pytest.skip(f"Emacs has no eglot (built in from Emacs 29; {INSTALL})")
    # eglot reads objects as plists: the empty one is nil.
    _check_session(_session(tmp_path, EGLOT, capsys), null={})


def test_lsp_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    if not _has("lsp-mode"):
        pytest.skip(f"Emacs has no lsp-mode ({INSTALL})")
    # lsp-mode reads false as nil.
    _check_session(_session(tmp_path, LSP_MODE, capsys), null=False)


def _as_null(value: Any, null: object) -> Any:
    """``value`` with each ``null`` in it replaced by None."""
    if value == null and type(value) is type(null):
        return None
    if isinstance(value, dict):
        return {key: _as_null(item, null) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_null(item, null) for item in value]
    return value
