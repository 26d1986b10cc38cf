// Starts `wfls serve` for workflow documents, keeps it in step with the
// `wfls.*` settings, and shows what it does: a language status item, the
// server output, and commands about the node under the cursor.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { CAN_RUN_CONTEXT, runWithSampleInput, showNodeContext, trackRunWorkflow } from './commands';
import { ServerController, type ServerClient } from './controller';
import { registerDebugger } from './debugger';
import {
  type Found,
  findServer,
  pythonExtensionInterpreter,
  readLaunchSettings,
  runForOutput,
} from './discovery';
import { WORKFLOW_SELECTOR } from './documents';
import { GraphPanels } from './graphPanel';
import { StatusItem } from './status';
import { TEST_COMMAND, TEST_SELECTOR } from './testDocuments';
import { WorkflowTests } from './tests';

const CLIENT_ID = 'wfls'; // also makes the client honour `wfls.trace.server`

/**
 * The settings the server reads (section `wfls`), also sent as `initializationOptions`
 * (dotted keys such as `inlayHints.itemTypes` flat, which the server accepts).
 */
export const SERVER_SIDE_SETTINGS = [
  'undeclaredPropertySeverity',
  'hintDeprecatedKeys',
  'inlayHints.itemTypes',
  'inlayHints.pathTypes',
  'inlayHints.ownerStacks',
  'format.width',
] as const;

let controller: ServerController | undefined;
let workflowTests: WorkflowTests | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('wfls');
  const log = (line: string) => output.appendLine(line);
  const folders = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const serverSettings = () => {
    const config = vscode.workspace.getConfiguration('wfls');
    return Object.fromEntries(SERVER_SIDE_SETTINGS.map((key) => [key, config.get(key)]));
  };
  // Each start watches anew; the client does not dispose the watcher it is given.
  let watcher: vscode.FileSystemWatcher | undefined;

  controller = new ServerController({
    readSettings: readLaunchSettings,
    find: (settings) =>
      findServer({
        settings,
        folders: folders(),
        trusted: vscode.workspace.isTrusted,
        platform: process.platform,
        env: process.env,
        homeDir: os.homedir(),
        pythonInterpreter: () => pythonExtensionInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri),
        run: (command, args) => runForOutput(command, args, folders()[0]),
        log,
      }),
    createClient: (found: Found, args: string[]): ServerClient => {
      watcher?.dispose();
      watcher = vscode.workspace.createFileSystemWatcher('**/*.wf.{toml,json}');
      // No `transport`: with TransportKind.stdio the client would append
      // `--stdio`, which `wfls serve` does not take; stdio is its default.
      const serverOptions: ServerOptions = {
        command: found.command,
        args: [...found.prefix, 'serve', ...args],
        options: { cwd: folders()[0] },
      };
      const clientOptions: LanguageClientOptions = {
        documentSelector: [...WORKFLOW_SELECTOR, ...TEST_SELECTOR],
        synchronize: { fileEvents: watcher },
        initializationOptions: serverSettings(),
        outputChannel: output,
        traceOutputChannel: output,
        diagnosticCollectionName: 'wfls',
        middleware: {
          // The "Run case" code lens runs `wfls.test`: through the Test Explorer, which shows the results.
          executeCommand: (command, args, next) =>
            command === TEST_COMMAND && workflowTests ? workflowTests.runFromCommand(args) : next(command, args),
        },
      };
      return new LanguageClient(CLIENT_ID, 'wfls', serverOptions, clientOptions);
    },
    serverSettings,
    log,
    reportMissing: () => void reportMissing(output),
    reportStartFailure: (found, reason) => void reportStartFailure(output, found, reason),
  });

  const graphs = new GraphPanels(controller, context.extensionUri);
  workflowTests = new WorkflowTests(controller);
  context.subscriptions.push(
    output,
    graphs,
    workflowTests,
    { dispose: () => watcher?.dispose() },
    vscode.commands.registerCommand('wfls.restartServer', () => controller?.restart('Restart requested')),
    vscode.commands.registerCommand('wfls.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('wfls.showNodeContext', () => controller && showNodeContext(controller)),
    // A run's trace is drawn on the document's graph too.
    vscode.commands.registerCommand('wfls.runWithSampleInput', () =>
      controller ? runWithSampleInput(controller, (document, result) => graphs.recordRun(document, result)) : undefined,
    ),
    vscode.commands.registerCommand('wfls.showGraph', () => graphs.show()),
    vscode.workspace.onDidChangeConfiguration((e) => controller?.onConfigurationChanged(e)),
    new StatusItem(controller),
    trackRunWorkflow(controller),
    registerDebugger(controller),
  );
  void vscode.commands.executeCommand('setContext', CAN_RUN_CONTEXT, false);
  await controller.restart('Activated');
}

export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}

let missingShown = false;

/** One message at a time, however many restarts find nothing while it is open. */
async function reportMissing(output: vscode.OutputChannel): Promise<void> {
  if (missingShown) return;
  missingShown = true;
  try {
    await askAboutMissing(output);
  } finally {
    missingShown = false;
  }
}

async function askAboutMissing(output: vscode.OutputChannel): Promise<void> {
  const openSetting = 'Open Setting';
  const showOutput = 'Show Output';
  const choice = await vscode.window.showErrorMessage(
    'wfls: the language server was not found. Install the wfls Python package into the workspace’s ' +
      '.venv (pip install wfls), or set wfls.server.path to its executable.',
    openSetting,
    showOutput,
  );
  if (choice === openSetting) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'wfls.server.path');
  } else if (choice === showOutput) {
    output.show(true);
  }
}

async function reportStartFailure(output: vscode.OutputChannel, found: Found, reason: string): Promise<void> {
  const showOutput = 'Show Output';
  const choice = await vscode.window.showErrorMessage(
    `wfls: the language server ${found.command} (from ${found.source}) did not start: ${reason}`,
    showOutput,
  );
  if (choice === showOutput) output.show(true);
}
