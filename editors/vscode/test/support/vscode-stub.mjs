// A stand-in for the `vscode` module with just the API the extension uses,
// recording what the extension does and letting a test play the editor:
// settings, folders, the active editor, dialogs and events.

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (listener) => {
      this.listeners.push(listener);
      return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
    };
  }
  fire(value) {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose() {
    this.listeners = [];
  }
}

class Uri {
  constructor(scheme, fsPath) {
    this.scheme = scheme;
    this.fsPath = fsPath;
    this.path = fsPath;
  }
  static file(fsPath) {
    return new Uri('file', fsPath);
  }
  toString() {
    return `${this.scheme}://${this.path}`;
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}

/** A fresh stub; `stub.vscode` is what `require('vscode')` returns. */
export function createVscodeStub() {
  const stub = {
    settings: {},
    folders: [],
    trusted: true,
    extensions: {},
    activeTextEditor: undefined,
    errorChoice: undefined,
    openDialogResult: undefined,
    files: {},
    // what the extension did
    errors: [],
    infos: [],
    contexts: {},
    executed: [],
    statusItems: [],
    opened: [],
    shown: [],
    commands: {},
  };
  const configurationEmitter = new EventEmitter();
  const selectionEmitter = new EventEmitter();
  const activeEditorEmitter = new EventEmitter();
  const documentEmitter = new EventEmitter();

  stub.vscode = {
    EventEmitter,
    Uri,
    Position,
    LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    workspace: {
      getConfiguration(section) {
        const prefix = section ? `${section}.` : '';
        return {
          get: (key, fallback) => {
            const full = prefix + key;
            return Object.hasOwn(stub.settings, full) ? stub.settings[full] : fallback;
          },
        };
      },
      get workspaceFolders() {
        return stub.folders.map((fsPath, index) => ({ uri: Uri.file(fsPath), name: fsPath, index }));
      },
      get isTrusted() {
        return stub.trusted;
      },
      onDidChangeConfiguration: configurationEmitter.event,
      onDidChangeTextDocument: documentEmitter.event,
      async openTextDocument(options) {
        const document = { uri: new Uri('untitled', `Untitled-${stub.opened.length + 1}`), ...options };
        stub.opened.push(options);
        return document;
      },
      fs: {
        async readFile(uri) {
          if (!Object.hasOwn(stub.files, uri.fsPath)) throw new Error(`ENOENT ${uri.fsPath}`);
          return new TextEncoder().encode(stub.files[uri.fsPath]);
        },
      },
      createFileSystemWatcher: () => ({ dispose() {} }),
    },
    window: {
      get activeTextEditor() {
        return stub.activeTextEditor;
      },
      onDidChangeTextEditorSelection: selectionEmitter.event,
      onDidChangeActiveTextEditor: activeEditorEmitter.event,
      async showErrorMessage(message, ...items) {
        stub.errors.push({ message, items });
        return stub.errorChoice;
      },
      async showInformationMessage(message, ...items) {
        stub.infos.push({ message, items });
        return undefined;
      },
      async showTextDocument(document, options) {
        stub.shown.push({ document, options });
      },
      async showOpenDialog() {
        return stub.openDialogResult;
      },
      createOutputChannel(name) {
        const lines = [];
        return { name, lines, appendLine: (l) => lines.push(l), show() {}, dispose() {} };
      },
    },
    languages: {
      createLanguageStatusItem(id, selector) {
        const item = { id, selector, text: '', detail: undefined, disposed: false, dispose() { this.disposed = true; } };
        stub.statusItems.push(item);
        return item;
      },
    },
    commands: {
      registerCommand(id, handler) {
        stub.commands[id] = handler;
        return { dispose: () => delete stub.commands[id] };
      },
      async executeCommand(id, ...args) {
        stub.executed.push([id, ...args]);
        if (id === 'setContext') stub.contexts[args[0]] = args[1];
      },
    },
    extensions: {
      getExtension: (id) => stub.extensions[id],
    },
  };

  /** Plays a configuration change; `affected` lists the sections VS Code reports. */
  stub.changeSettings = (changes, affected = Object.keys(changes)) => {
    Object.assign(stub.settings, changes);
    configurationEmitter.fire({
      affectsConfiguration: (section) =>
        affected.some((key) => key === section || key.startsWith(`${section}.`)),
    });
  };
  /** Puts an editor on `path` with the cursor at `line`, `character`. */
  stub.openEditor = (path, line, character) => {
    const document = { uri: Uri.file(path), languageId: 'wf-toml' };
    stub.activeTextEditor = { document, selection: { active: new Position(line, character) } };
    activeEditorEmitter.fire(stub.activeTextEditor);
    return stub.activeTextEditor;
  };
  stub.moveCursor = (line, character) => {
    stub.activeTextEditor.selection = { active: new Position(line, character) };
    selectionEmitter.fire({ textEditor: stub.activeTextEditor });
  };
  return stub;
}
