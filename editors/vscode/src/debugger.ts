// The `wfls` debugger: VS Code talks the Debug Adapter Protocol to `wfls debug`,
// started with the same wfls the language server runs from (discovery.ts finds
// it once, the controller keeps what it found). Breakpoints, stepping and the
// variables are the adapter's; the values beside the stopped node's bindings
// come from the language server (`textDocument/inlineValue`), which VS Code
// asks by itself while a wfls session is stopped.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ServerController } from './controller';
import { isWorkflowDocument } from './documents';

export const DEBUG_TYPE = 'wfls';

/** What F5 launches when there is no launch.json: the open workflow, from its entry. */
export function defaultLaunch(program: string): vscode.DebugConfiguration {
  return { type: DEBUG_TYPE, request: 'launch', name: 'Debug workflow', program, stopOnEntry: true };
}

/** The input file F5 proposes: `<name>.input.json` beside `<name>.wf.toml`, when it exists. */
export function proposedInput(program: string): string {
  const base = path.basename(program).replace(/\.wf\.(toml|json)$/, '');
  return path.join(path.dirname(program), `${base}.input.json`);
}

async function askForInput(program: string): Promise<string | undefined> {
  const proposed = vscode.Uri.file(proposedInput(program));
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    defaultUri: proposed,
    filters: { JSON: ['json'] },
    openLabel: 'Debug with this input',
    title: `The input of ${path.basename(program)}`,
  });
  return picked?.[0]?.fsPath;
}

export function registerDebugger(controller: ServerController): vscode.Disposable {
  const factory: vscode.DebugAdapterDescriptorFactory = {
    async createDebugAdapterDescriptor(session) {
      await controller.idle();
      const state = controller.state;
      if (state.kind !== 'running') {
        throw new Error('wfls was not found or did not start: see the wfls output (wfls: Show Output)');
      }
      const cwd = session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      return new vscode.DebugAdapterExecutable(state.found.command, [...state.found.prefix, 'debug'], { cwd });
    },
  };
  const provider: vscode.DebugConfigurationProvider = {
    async resolveDebugConfiguration(_folder, config) {
      if (!config.type && !config.request && !config.name) {
        // F5 without a launch.json: the workflow in the editor.
        const document = vscode.window.activeTextEditor?.document;
        if (!document || !isWorkflowDocument(document)) {
          void vscode.window.showInformationMessage('Open a workflow (*.wf.toml, *.wf.json) to debug it.');
          return undefined;
        }
        config = defaultLaunch(document.uri.fsPath);
      }
      const needsInput = config.input === undefined && config.tests === undefined; // a case has its own
      if (config.request === 'launch' && needsInput && typeof config.program === 'string') {
        const input = await askForInput(config.program);
        if (input === undefined) return undefined; // cancelled: no session
        config.input = input;
      }
      return config;
    },
  };
  return vscode.Disposable.from(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, factory),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider),
  );
}
