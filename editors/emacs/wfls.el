;;; wfls.el --- lda-wf workflow documents with the wfls language server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages, tools

;;; Commentary:

;; Major modes for lda-wf workflow documents (`*.wf.toml', `*.wf.json') and their
;; test documents (`*.wf.test.toml', `*.wf.test.json'), and the language server
;; `wfls serve' registered with both of Emacs's LSP clients:
;;
;; - eglot (built into Emacs 29 and later; Debian's `elpa-eglot' on Emacs 28):
;;   `M-x eglot' in a workflow buffer, or `eglot-ensure' in the modes' hooks;
;; - lsp-mode: `M-x lsp', or `lsp-deferred' in the modes' hooks.
;;
;; `wfls-toml-mode' derives from `toml-ts-mode' where Emacs has it and its grammar
;; is installed, else from `conf-toml-mode'; `wfls-json-mode' from `js-json-mode'
;; (Emacs 29), else `json-mode' (the package), else `js-mode'.  So a workflow keeps
;; the highlighting and indentation of its syntax, and only workflow documents
;; reach wfls: the TOML and JSON servers of other files are left alone.
;;
;; The server's settings are the `wfls' customization group; both clients send
;; them as `initializationOptions' and answer the server's
;; `workspace/configuration' request for the section `wfls' with them.
;;
;; Two commands ask the server through `workspace/executeCommand':
;; `wfls-show-context' (what the node at point can read) and `wfls-run' (the
;; workflow run on a JSON input with stand-in handlers, its trace shown).

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)
(require 'eieio)

(defgroup wfls nil
  "lda-wf workflow documents and the wfls language server."
  :group 'languages
  :prefix "wfls-")

(defcustom wfls-server-command '("wfls" "serve")
  "The command that starts the language server on stdio.
For the project's virtualenv, for instance:
  (setq wfls-server-command \\='(\"/path/to/wfls/.venv/bin/wfls\" \"serve\"))
It takes effect when the next server starts."
  :type '(repeat string))

(defcustom wfls-undeclared-property-severity "warning"
  "How a read of a property that the schema does not declare is reported."
  :type '(choice (const "error") (const "warning") (const "information")
                 (const "hint") (const "off")))

(defcustom wfls-hint-deprecated-keys t
  "Whether convenience keys (`context.loop_item', ...) get a deprecation hint."
  :type 'boolean)

(defcustom wfls-extra-globs nil
  "More workflow documents to index, as globs relative to the workspace folders."
  :type '(repeat string))

(defcustom wfls-inlay-hints-item-types t
  "Whether a foreach's `over' is followed by the type of one item."
  :type 'boolean)

(defcustom wfls-inlay-hints-path-types t
  "Whether a binding's path is followed by the type it reads."
  :type 'boolean)

(defcustom wfls-inlay-hints-owner-stacks nil
  "Whether the `id' of a node inside loops is followed by its owner stack."
  :type 'boolean)

(defcustom wfls-format-width 100
  "The line width of formatting, from 20 to 1000."
  :type 'integer)

(defconst wfls--settings
  '(("undeclaredPropertySeverity" wfls-undeclared-property-severity string)
    ("hintDeprecatedKeys" wfls-hint-deprecated-keys boolean)
    ("extraGlobs" wfls-extra-globs array)
    ("inlayHints.itemTypes" wfls-inlay-hints-item-types boolean)
    ("inlayHints.pathTypes" wfls-inlay-hints-path-types boolean)
    ("inlayHints.ownerStacks" wfls-inlay-hints-owner-stacks boolean)
    ("format.width" wfls-format-width number))
  "The server's settings: (KEY VARIABLE KIND), KEY dotted in the section `wfls'.
Both clients' settings are made from this one table.")

(defun wfls--json-value (variable kind)
  "VARIABLE's value as JSON of KIND: false and arrays as both clients send them."
  (let ((value (symbol-value variable)))
    (pcase kind
      ('boolean (if value t :json-false))
      ('array (vconcat value))
      (_ value))))

(defun wfls--plist-put-path (plist keys value)
  "PLIST with VALUE at the nested KEYS (strings), as a JSON object of plists."
  (let ((key (intern (concat ":" (car keys)))))
    (plist-put plist key (if (cdr keys)
                             (wfls--plist-put-path (plist-get plist key) (cdr keys) value)
                           value))))

(defun wfls-settings ()
  "The section `wfls' of the server's settings, as a JSON object (a plist)."
  (let (settings)
    (pcase-dolist (`(,key ,variable ,kind) wfls--settings)
      (setq settings (wfls--plist-put-path settings (split-string key "\\.")
                                           (wfls--json-value variable kind))))
    settings))

;;;; Major modes

;; The parents are chosen when this file is loaded: the aliases keep
;; `derived-mode-p' true for the real parent (`conf-toml-mode', `js-mode', ...).
(defalias 'wfls--toml-parent-mode
  (if (and (fboundp 'toml-ts-mode) (fboundp 'treesit-ready-p)
           (treesit-ready-p 'toml t))
      'toml-ts-mode
    'conf-toml-mode))

(defalias 'wfls--json-parent-mode
  (cond ((fboundp 'js-json-mode) 'js-json-mode)
        ((fboundp 'json-mode) 'json-mode)
        (t 'js-mode)))

;;;###autoload
(define-derived-mode wfls-toml-mode wfls--toml-parent-mode "WF-TOML"
  "Major mode for lda-wf workflow documents in TOML (`*.wf.toml').")

;; A dot separates the segments of a context path (`context.foreach.customers'),
;; as in JSON: the segment being typed is then the symbol at point, which the
;; clients complete, where `conf-toml-mode' would take the whole dotted path.
(modify-syntax-entry ?. "." wfls-toml-mode-syntax-table)

;;;###autoload
(define-derived-mode wfls-json-mode wfls--json-parent-mode "WF-JSON"
  "Major mode for lda-wf workflow documents in JSON (`*.wf.json').")

;; In front of `auto-mode-alist', before the entries for any `.toml' or `.json'.
;;;###autoload
(add-to-list 'auto-mode-alist '("\\.wf\\(?:\\.test\\)?\\.toml\\'" . wfls-toml-mode))
;;;###autoload
(add-to-list 'auto-mode-alist '("\\.wf\\(?:\\.test\\)?\\.json\\'" . wfls-json-mode))

;;;; eglot

(defvar eglot-server-programs)
(declare-function eglot-current-server "eglot")
(declare-function eglot--TextDocumentPositionParams "eglot")
(declare-function jsonrpc-request "jsonrpc")

(with-eval-after-load 'eglot
  ;; (not at top level, so the byte compiler would miss the predicate it defines)
  (with-no-warnings
    (defclass wfls-eglot-server (eglot-lsp-server) ()
      :documentation "wfls, whose settings are the `wfls' customization group."))

  (cl-defmethod eglot-initialization-options ((_server wfls-eglot-server))
    "The settings, as `initializationOptions'."
    (wfls-settings))

  ;; eglot answers `workspace/configuration' from `eglot-workspace-configuration'
  ;; (a directory-local variable): a `wfls' section found there is taken as it is,
  ;; else the customized settings are.
  (cl-defmethod eglot-handle-request
    ((_server wfls-eglot-server) (_method (eql workspace/configuration)) &rest params)
    "The section `wfls' of the directory's configuration, else the settings."
    (let ((answers (cl-call-next-method))
          (items (plist-get params :items)))
      (apply #'vector
             (cl-loop for answer across answers
                      for item across items
                      collect (if (and (null answer)
                                       (equal (plist-get item :section) "wfls"))
                                  (wfls-settings)
                                answer)))))

  ;; In front: the first entry whose modes the buffer's mode derives from wins.
  (add-to-list 'eglot-server-programs
               `(((wfls-toml-mode :language-id "toml") (wfls-json-mode :language-id "json"))
                 . ,(lambda (&optional _interactive)
                      (cons 'wfls-eglot-server wfls-server-command)))))

;;;; lsp-mode

(defvar lsp-language-id-configuration)
(declare-function lsp-register-client "lsp-mode")
(declare-function lsp-register-custom-settings "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-request "lsp-mode")
(declare-function lsp--buffer-uri "lsp-mode")
(declare-function lsp--cur-position "lsp-mode")

(with-eval-after-load 'lsp-mode
  (add-to-list 'lsp-language-id-configuration '(wfls-toml-mode . "toml"))
  (add-to-list 'lsp-language-id-configuration '(wfls-json-mode . "json"))
  ;; lsp-mode answers `workspace/configuration' from its registered settings.
  (lsp-register-custom-settings
   (mapcar (pcase-lambda (`(,key ,variable ,kind))
             (list (concat "wfls." key) (lambda () (wfls--json-value variable kind))))
           wfls--settings))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () wfls-server-command))
    :major-modes '(wfls-toml-mode wfls-json-mode)
    ;; Above the TOML and JSON servers, which the language ids would also start.
    :priority 1
    :server-id 'wfls
    :initialization-options #'wfls-settings)))

;;;; Commands through `workspace/executeCommand'

(defun wfls--eglot-p ()
  "Whether eglot manages the current buffer."
  (and (bound-and-true-p eglot--managed-mode) (eglot-current-server) t))

(defun wfls--lsp-mode-p ()
  "Whether lsp-mode manages the current buffer."
  (bound-and-true-p lsp-mode))

(defun wfls--no-server ()
  "Say that no client manages the current buffer."
  (user-error "wfls: no language server manages %s: start one with M-x eglot or M-x lsp"
              (buffer-name)))

(defun wfls--execute (command argument)
  "The answer of the current buffer's server to COMMAND with the one ARGUMENT.
An error reply (a run refused, with its reason) is a `user-error' saying why."
  (let ((params (list :command command :arguments (vector argument))))
    (cond ((wfls--eglot-p)
           (condition-case err
               ;; Deferred, so that eglot first sends the changes it holds back:
               ;; the server answers for the buffer as it is.
               (jsonrpc-request (eglot-current-server) :workspace/executeCommand params
                                :deferred command)
             (jsonrpc-error
              (user-error "wfls: %s" (or (alist-get 'jsonrpc-error-message (cdr err))
                                         (error-message-string err))))))
          ((wfls--lsp-mode-p)
           (condition-case err
               ;; lsp-mode signals the message as a format string: quotes kept.
               (let ((text-quoting-style 'grave))
                 (lsp-request "workspace/executeCommand" params))
             (error (user-error "wfls: %s" (error-message-string err)))))
          (t (wfls--no-server)))))

(defun wfls--point-argument ()
  "The argument {\"uri\", \"position\"} of point, in the client's position encoding."
  (cond ((wfls--eglot-p)
         (let ((params (eglot--TextDocumentPositionParams)))
           (list :uri (plist-get (plist-get params :textDocument) :uri)
                 :position (plist-get params :position))))
        ((wfls--lsp-mode-p) (list :uri (lsp--buffer-uri) :position (lsp--cur-position)))
        (t (wfls--no-server))))

(defun wfls--get (object key)
  "KEY (a string) of a JSON OBJECT, as either client reads it.
eglot reads objects as plists, lsp-mode as hash tables (or as plists with
`lsp-use-plists')."
  (if (hash-table-p object)
      (gethash key object)
    (plist-get object (intern (concat ":" key)))))

(defun wfls--show (name text setup)
  "Show TEXT in the read-only buffer NAME, set up by the function SETUP; return it."
  (let ((buffer (get-buffer-create name)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text)
        (funcall setup)
        (goto-char (point-min)))
      (setq buffer-read-only t))
    (display-buffer buffer)
    buffer))

;;;###autoload
(defun wfls-show-context ()
  "Show what the node at point can read, as `wfls context FILE NODE --json' does.
The owner stack, the node's context JSON Schema and the path inventory, from the
server's `wfls.nodeContext'.  eglot reads an empty JSON object, and lsp-mode
reads false, as it reads null (nil): the view shows those as null."
  (interactive)
  (let ((context (wfls--execute "wfls.nodeContext" (wfls--point-argument))))
    (if (null context)
        (progn (message "wfls: point is not inside a node") nil)
      (wfls--show "*wfls context*" (json-encode context)
                  (lambda ()
                    (json-pretty-print-buffer)
                    (wfls--json-parent-mode))))))

(defvar-local wfls--trace-of nil
  "In a trace buffer: the workflow buffer the run was of.")
(put 'wfls--trace-of 'permanent-local t)

(defun wfls--read-input (file)
  "The JSON value of FILE, read so that each client writes it back as it was."
  (with-temp-buffer
    (insert-file-contents file)
    (condition-case err
        (json-parse-buffer :object-type 'hash-table :null-object nil
                           :false-object :json-false)
      (json-error (user-error "wfls: %s is not JSON: %s" file (error-message-string err))))))

;;;###autoload
(defun wfls-run (input-file)
  "Run the buffer's workflow on the JSON in INPUT-FILE with stand-in handlers.
The server runs it (`wfls.runWorkflow') and the trace is shown in a buffer of
its own; afterwards hover on a node's `id' shows the loop items its activations
saw.  From a trace buffer, the workflow it is the trace of runs again."
  (interactive (list (read-file-name "Input JSON: " nil nil t)))
  (let* ((workflow (if (buffer-live-p wfls--trace-of) wfls--trace-of (current-buffer)))
         (input (wfls--read-input input-file))
         (result (with-current-buffer workflow
                   (let ((argument (wfls--point-argument)))
                     (wfls--execute "wfls.runWorkflow"
                                    (list :uri (plist-get argument :uri) :input input)))))
         (text (wfls--get result "text")))
    (unless (stringp text)
      (user-error "wfls: the server answered without a trace to show"))
    (wfls--show (format "*wfls trace: %s*" (buffer-name workflow)) text
                (lambda ()
                  (special-mode)
                  (setq wfls--trace-of workflow)))))

(provide 'wfls)

;;; wfls.el ends here
