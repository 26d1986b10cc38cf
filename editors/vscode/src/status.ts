// The language status item of workflow documents: the server's state and
// version, and the owner stack of the node under the cursor (asked from the
// server with `wfls.ownerStack` shortly after the cursor stops moving).
import * as vscode from 'vscode';
import type { ServerController, ServerState } from './controller';
import { WORKFLOW_SELECTOR, isWorkflowDocument } from './documents';
import { executeAt } from './requests';

/** What `wfls.ownerStack` answers. */
export interface OwnerStack {
  node: string;
  owner_stack: string[] | null;
}

export function describeOwnerStack(result: OwnerStack | null | undefined): string {
  if (!result) return 'cursor outside the nodes';
  const stack = result.owner_stack;
  if (stack === null) return `node ${result.node}: no context (unreachable, or reached under two loops)`;
  if (stack.length === 0) return `node ${result.node}: no active loop`;
  return `node ${result.node}: owner stack ${stack.join(' › ')}`;
}

export interface StatusView {
  text: string;
  detail: string;
  severity: vscode.LanguageStatusSeverity;
  busy: boolean;
  command?: vscode.Command;
}

export function statusView(state: ServerState, ownerStack: string | undefined): StatusView {
  const showOutput = { title: 'Show Output', command: 'wfls.showOutput' };
  switch (state.kind) {
    case 'starting':
      return { text: 'wfls', detail: 'starting', severity: vscode.LanguageStatusSeverity.Information, busy: true };
    case 'running':
      return {
        text: `wfls ${state.version}`,
        detail: ownerStack ? `running · ${ownerStack}` : 'running',
        severity: vscode.LanguageStatusSeverity.Information,
        busy: false,
        command: showOutput,
      };
    case 'missing':
      return {
        text: 'wfls not found',
        detail: 'set wfls.server.path',
        severity: vscode.LanguageStatusSeverity.Error,
        busy: false,
        command: { title: 'Open Setting', command: 'workbench.action.openSettings', arguments: ['wfls.server.path'] },
      };
    case 'failed':
      return {
        text: 'wfls stopped',
        detail: state.reason,
        severity: vscode.LanguageStatusSeverity.Error,
        busy: false,
        command: showOutput,
      };
  }
}

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly subscriptions: vscode.Disposable[] = [];
  private ownerStack: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private asked = 0;

  constructor(
    private readonly controller: ServerController,
    private readonly delayMs = 150,
  ) {
    this.item = vscode.languages.createLanguageStatusItem('wfls.status', WORKFLOW_SELECTOR);
    this.item.name = 'wfls';
    this.subscriptions.push(
      controller.onDidChangeState(() => {
        this.render();
        this.schedule();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) this.schedule();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) this.schedule();
      }),
    );
    this.render();
    this.schedule();
  }

  private render(): void {
    const view = statusView(this.controller.state, this.ownerStack);
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.severity = view.severity;
    this.item.busy = view.busy;
    this.item.command = view.command;
    this.item.accessibilityInformation = { label: `${view.text}, ${view.detail}` };
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), this.delayMs);
  }

  /** Asks for the owner stack at the cursor; an answer overtaken by a newer question is dropped. */
  async refresh(): Promise<void> {
    const ticket = ++this.asked;
    const editor = vscode.window.activeTextEditor;
    let text: string | undefined;
    if (editor && isWorkflowDocument(editor.document) && this.controller.running) {
      try {
        const result = await executeAt<OwnerStack | null>(
          this.controller,
          'wfls.ownerStack',
          editor.document,
          editor.selection.active,
        );
        text = describeOwnerStack(result);
      } catch {
        text = undefined; // the server is restarting or the document is gone: show the state only
      }
    }
    if (ticket !== this.asked) return;
    this.ownerStack = text;
    this.render();
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
