// Commands about the document in the editor: the context of the node under
// the cursor, and running the workflow on a sample input when the server can.
import * as vscode from 'vscode';
import type { ServerController, ServerState } from './controller';
import { describe } from './discovery';
import { isWorkflowDocument } from './documents';
import { executeAt } from './requests';

export const RUN_WORKFLOW = 'wfls.runWorkflow';
/** The context key that shows "Run with Sample Input" (see `menus` in package.json). */
export const CAN_RUN_CONTEXT = 'wfls.canRunWorkflow';

/** Whether the running server advertises `wfls.runWorkflow`. */
export function canRunWorkflow(state: ServerState): boolean {
  return state.kind === 'running' && state.commands.includes(RUN_WORKFLOW);
}

/** Keeps the context key in step with the server. */
export function trackRunWorkflow(controller: ServerController): vscode.Disposable {
  let last: boolean | undefined;
  const update = (state: ServerState) => {
    const can = canRunWorkflow(state);
    if (can === last) return;
    last = can;
    void vscode.commands.executeCommand('setContext', CAN_RUN_CONTEXT, can);
  };
  update(controller.state);
  return controller.onDidChangeState(update);
}

function workflowEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor && isWorkflowDocument(editor.document)) return editor;
  void vscode.window.showInformationMessage('wfls: open a workflow document (*.wf.toml, *.wf.json) first.');
  return undefined;
}

async function openUntitled(content: string, language: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ language, content });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

/** "Show Context at Node": what `wfls context FILE NODE --json` prints, as an untitled JSON document. */
export async function showNodeContext(controller: ServerController): Promise<void> {
  const editor = workflowEditor();
  if (!editor) return;
  let context: unknown;
  try {
    context = await executeAt(controller, 'wfls.nodeContext', editor.document, editor.selection.active);
  } catch (err) {
    void vscode.window.showErrorMessage(`wfls: ${describe(err)}`);
    return;
  }
  if (context === null || context === undefined) {
    void vscode.window.showInformationMessage('wfls: the cursor is not inside a node.');
    return;
  }
  await openUntitled(JSON.stringify(context, null, 2) + '\n', 'json');
}

/**
 * "Run with Sample Input": only offered when the server advertises `wfls.runWorkflow`.
 * `onRun` gets the server's answer (its `trace` is what the graph view overlays).
 */
export async function runWithSampleInput(
  controller: ServerController,
  onRun?: (document: vscode.TextDocument, result: unknown) => void,
): Promise<void> {
  if (!canRunWorkflow(controller.state)) {
    void vscode.window.showInformationMessage('wfls: this server cannot run workflows.');
    return;
  }
  const editor = workflowEditor();
  if (!editor) return;
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: 'Run with this input',
    filters: { 'JSON input': ['json'] },
  });
  if (!picked || picked.length === 0) return;
  let input: unknown;
  try {
    input = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(picked[0])));
  } catch (err) {
    void vscode.window.showErrorMessage(`wfls: ${picked[0].fsPath} is not valid JSON (${describe(err)}).`);
    return;
  }
  const client = controller.running;
  if (!client) return;
  let result: unknown;
  try {
    result = await client.sendRequest('workspace/executeCommand', {
      command: RUN_WORKFLOW,
      arguments: [{ uri: editor.document.uri.toString(), input }],
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`wfls: running the workflow failed: ${describe(err)}`);
    return;
  }
  onRun?.(editor.document, result);
  const text = (result as { text?: unknown } | null)?.text;
  if (typeof text !== 'string') {
    void vscode.window.showErrorMessage('wfls: the server answered without a text to show.');
    return;
  }
  await openUntitled(text, 'plaintext');
}
