// "wfls: Show Graph": the workflow's graph in a webview beside the editor, one
// panel per document. The graph comes from the server's `wfls.graph` command and
// is fetched again when the document's diagnostics or text change; the node under
// the cursor is highlighted; a click on a node selects its entry in the editor, on a
// subgraph's link opens the child; a run's trace is overlaid; exports are saved
// through VS Code's save dialog. The drawing itself is src/graph/webview/.
import * as vscode from 'vscode';
import type { ServerController, ServerState } from './controller';
import { describe } from './discovery';
import { isWorkflowDocument } from './documents';
import type { FromView, ToView } from './graph/messages';
import {
  type Activation,
  type Finding,
  type Graph,
  type Point,
  childLocation,
  codePointColumn,
  nodeAt,
  utf16Offset,
  withMessages,
} from './graph/model';

export const GRAPH_COMMAND = 'wfls.graph';
const VIEW_TYPE = 'wfls.graph';
/** After a change of the text, how long the panel waits for more before asking again. */
const TYPING_DELAY = 300;
/** After new diagnostics (the server has analysed the change): ask at once, nearly. */
const DIAGNOSTICS_DELAY = 30;

const SEVERITIES = ['error', 'warning', 'information', 'hint'];

/** Whether the running server advertises `wfls.graph`. */
export function canDrawGraph(state: ServerState): boolean {
  return state.kind === 'running' && state.commands.includes(GRAPH_COMMAND);
}

/** A VS Code position as a graph point (1-based line, code-point column). */
export function toPoint(document: vscode.TextDocument, position: vscode.Position): Point {
  return { line: position.line + 1, column: codePointColumn(document.lineAt(position.line).text, position.character) };
}

function toPosition(document: vscode.TextDocument, point: Point): vscode.Position {
  const line = Math.min(Math.max(point.line - 1, 0), Math.max(document.lineCount - 1, 0));
  return new vscode.Position(line, utf16Offset(document.lineAt(line).text, point.column));
}

function findings(document: vscode.TextDocument): Finding[] {
  return vscode.languages.getDiagnostics(document.uri).map((d) => ({
    start: toPoint(document, d.range.start),
    severity: SEVERITIES[d.severity] ?? 'error',
    message: d.code !== undefined ? `${typeof d.code === 'object' ? d.code.value : d.code}: ${d.message}` : d.message,
  }));
}

function nonce(): string {
  const bytes = new Uint8Array(18);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Buffer.from(bytes).toString('base64');
}

/** What a run gave back that the graph shows: its activations, and the text that ran. */
interface Run {
  activations: Activation[];
  text: string;
}

/** The graph panels, one per document, and what they all listen to. */
export class GraphPanels implements vscode.Disposable {
  private readonly panels = new Map<string, GraphPanel>();
  private readonly runs = new Map<string, Run>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly controller: ServerController,
    private readonly extensionUri: vscode.Uri,
  ) {
    this.subscriptions = [
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const uri of e.uris) this.panels.get(uri.toString())?.schedule(DIAGNOSTICS_DELAY);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.panels.get(e.document.uri.toString())?.schedule(TYPING_DELAY);
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        this.panels.get(e.textEditor.document.uri.toString())?.follow(e.textEditor);
      }),
      controller.onDidChangeState((state) => {
        for (const panel of this.panels.values()) {
          if (state.kind === 'running') panel.schedule(0);
        }
      }),
    ];
  }

  /** "wfls: Show Graph" for the active editor's workflow. */
  async show(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !isWorkflowDocument(editor.document)) {
      void vscode.window.showInformationMessage('wfls: open a workflow document (*.wf.toml, *.wf.json) first.');
      return;
    }
    const key = editor.document.uri.toString();
    const open = this.panels.get(key);
    if (open) {
      open.panel.reveal(undefined, true);
      return;
    }
    const panel = new GraphPanel(this.controller, this.extensionUri, editor, this.runs.get(key) ?? null, () =>
      this.panels.delete(key),
    );
    this.panels.set(key, panel);
  }

  /** A run of `document` ended: its trace goes on that document's graph, now or when it opens. */
  recordRun(document: vscode.TextDocument, result: unknown): void {
    const trace = (result as { trace?: unknown } | null)?.trace;
    if (!Array.isArray(trace)) return;
    const activations = trace
      .filter((r): r is { node: string; outcome?: unknown } => typeof r?.node === 'string')
      .map((r) => ({ node: r.node, outcome: typeof r.outcome === 'string' ? r.outcome : null }));
    const run = { activations, text: document.getText() };
    const key = document.uri.toString();
    this.runs.set(key, run);
    this.panels.get(key)?.showRun(run);
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.panel.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}

class GraphPanel {
  readonly panel: vscode.WebviewPanel;
  private readonly uri: vscode.Uri;
  private readonly column: vscode.ViewColumn;
  private graph: Graph | null = null;
  private ready = false;
  private readonly queue: ToView[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fetching = false;
  private again = false;
  private highlighted: string | null | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly controller: ServerController,
    extensionUri: vscode.Uri,
    editor: vscode.TextEditor,
    private run: Run | null,
    onDispose: () => void,
  ) {
    this.uri = editor.document.uri;
    this.column = editor.viewColumn ?? vscode.ViewColumn.One;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    const name = this.uri.path.split('/').pop() ?? 'workflow';
    this.panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      `Graph: ${name}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [dist] },
    );
    const webview = this.panel.webview;
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'graph-view.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'graph-view-style.css'));
    const once = nonce();
    // Graphviz is WebAssembly ('wasm-unsafe-eval'); the view sets styles on the SVG it draws.
    const policy = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `style-src ${webview.cspSource} 'unsafe-inline'`,
      `font-src ${webview.cspSource}`,
      `script-src 'nonce-${once}' 'wasm-unsafe-eval'`,
    ].join('; ');
    webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<link rel="stylesheet" href="${style}">
<title>Graph: ${name.replace(/[<>&"]/g, '')}</title></head>
<body><script nonce="${once}" src="${script}"></script></body></html>`;
    this.subscriptions.push(
      webview.onDidReceiveMessage((message: FromView) => void this.receive(message)),
      this.panel.onDidDispose(() => {
        clearTimeout(this.timer);
        for (const s of this.subscriptions) s.dispose();
        onDispose();
      }),
    );
    this.schedule(0);
  }

  private post(message: ToView): void {
    if (this.ready) void this.panel.webview.postMessage(message);
    else this.queue.push(message);
  }

  /** Fetches the graph again after `delay` ms (a later call within it restarts the wait). */
  schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  private document(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.uri.toString());
  }

  /** Asks the server for the graph; one request at a time, and one more if asked meanwhile. */
  private async refresh(): Promise<void> {
    if (this.fetching) {
      this.again = true;
      return;
    }
    const client = this.controller.running;
    if (!client) {
      this.post({ type: 'message', text: 'Waiting for the wfls server…' });
      return;
    }
    if (!canDrawGraph(this.controller.state)) {
      this.post({ type: 'message', text: 'This wfls server cannot draw graphs (it has no wfls.graph command).' });
      return;
    }
    this.fetching = true;
    try {
      const graph = await client.sendRequest<Graph | null>('workspace/executeCommand', {
        command: GRAPH_COMMAND,
        arguments: [{ uri: this.uri.toString() }],
      });
      const document = this.document();
      if (!graph) {
        this.post({ type: 'message', text: 'The server does not know this document.' });
      } else {
        this.graph = document ? withMessages(graph, findings(document)) : graph;
        this.post({ type: 'graph', graph: this.graph });
        if (this.run) this.showRun(this.run);
        const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri.toString());
        this.highlighted = undefined;
        if (editor) this.follow(editor);
      }
    } catch (error) {
      this.post({ type: 'message', text: `The graph could not be fetched: ${describe(error)}` });
    } finally {
      this.fetching = false;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    }
  }

  /** Highlights the node under `editor`'s cursor. */
  follow(editor: vscode.TextEditor): void {
    if (!this.graph) return;
    const id = nodeAt(this.graph, toPoint(editor.document, editor.selection.active));
    if (id === this.highlighted) return;
    this.highlighted = id;
    this.post({ type: 'highlight', id });
  }

  showRun(run: Run): void {
    this.run = run;
    const stale = this.document()?.getText() !== run.text;
    this.post({ type: 'trace', activations: run.activations, note: stale ? 'last run, on an earlier version' : 'last run' });
  }

  private async receive(message: FromView): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        for (const queued of this.queue.splice(0)) void this.panel.webview.postMessage(queued);
        break;
      case 'reveal':
        await this.reveal(message.id);
        break;
      case 'openChild':
        await this.openChild(message.node);
        break;
      case 'save':
        await this.save(message.format, message.data, message.name);
        break;
    }
  }

  /** Selects the start of the node's entry in the editor and scrolls the entry into view. */
  private async reveal(id: string): Promise<void> {
    const node = this.graph?.nodes.find((n) => n.id === id);
    if (!node?.range) return;
    const document = await vscode.workspace.openTextDocument(this.uri);
    const editor = await vscode.window.showTextDocument(document, { viewColumn: this.column, preserveFocus: false });
    const start = toPosition(document, node.range.start);
    const end = toPosition(document, node.range.end);
    editor.selection = new vscode.Selection(start, start);
    editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private async openChild(nodeId: string): Promise<void> {
    const call = this.graph?.subgraphs.find((s) => s.node === nodeId);
    const where = call ? childLocation(call) : null;
    if (!call || !where) {
      void vscode.window.showInformationMessage(
        `wfls: no document of the workspace declares the workflow ${call?.workflow ?? ''} that ${nodeId} runs.`,
      );
      return;
    }
    const uri = call.uri ? vscode.Uri.parse(call.uri) : vscode.Uri.file(where);
    try {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { viewColumn: this.column });
    } catch (error) {
      void vscode.window.showErrorMessage(`wfls: cannot open ${where}: ${describe(error)}`);
    }
  }

  private async save(format: 'svg' | 'png', data: string, name: string): Promise<void> {
    const folder = vscode.Uri.joinPath(this.uri, '..');
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(folder, name),
      filters: format === 'svg' ? { 'SVG image': ['svg'] } : { 'PNG image': ['png'] },
      saveLabel: `Export ${format.toUpperCase()}`,
    });
    if (!target) return;
    const bytes = format === 'svg' ? new TextEncoder().encode(data) : Buffer.from(data, 'base64');
    try {
      await vscode.workspace.fs.writeFile(target, bytes);
      this.post({ type: 'message', text: `Saved ${target.fsPath}` });
    } catch (error) {
      void vscode.window.showErrorMessage(`wfls: cannot write ${target.fsPath}: ${describe(error)}`);
    }
  }
}
