// Starts `wfls serve` over stdio for workflow documents and keeps it in step
// with the `wfls.*` settings.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { SERVER_SIDE_SETTINGS, serverCommand } from './server';

const CLIENT_ID = 'wfls'; // also makes the client honour `wfls.trace.server`
const CLIENT_NAME = 'wfls';

// The server claims documents by URI suffix, whatever their language id, so
// the selector does too: `*.wf.json` stays in VS Code's JSON language and
// keeps its JSON features. Untitled documents count when they have a path
// (`code new.wf.toml` for a file that does not exist yet).
const DOCUMENT_SELECTOR = ['file', 'untitled'].flatMap((scheme) => [
  { scheme, pattern: '**/*.wf.toml' },
  { scheme, pattern: '**/*.wf.json' },
]);

interface Running {
  client: LanguageClient;
  /** Feeds `workspace/didChangeWatchedFiles`; the client does not dispose it. */
  watcher: vscode.FileSystemWatcher;
}

let running: Running | undefined;
let output: vscode.OutputChannel;
// Restarts are chained so that quick successive setting changes or command
// invocations never run two servers at once.
let pending: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('wfls');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('wfls.restartServer', () => restart()),
    vscode.commands.registerCommand('wfls.showOutput', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // Server-side settings reach the running server through
      // `synchronize.configurationSection`; only the command line needs a restart.
      if (e.affectsConfiguration('wfls.server')) void restart();
    }),
  );
  await restart();
}

export async function deactivate(): Promise<void> {
  await pending;
  await stopClient();
}

function restart(): Promise<void> {
  pending = pending.then(async () => {
    await stopClient();
    await startClient();
  });
  return pending;
}

async function stopClient(): Promise<void> {
  const current = running;
  running = undefined;
  if (!current) return;
  current.watcher.dispose();
  try {
    await current.client.dispose();
  } catch (err) {
    // A server that already died cannot be stopped; it is gone either way.
    output.appendLine(`Stopping the server: ${describe(err)}`);
  }
}

async function startClient(): Promise<void> {
  const config = vscode.workspace.getConfiguration('wfls');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const launch = serverCommand(
    {
      path: config.get('server.path'),
      pythonPath: config.get('server.pythonPath'),
      args: config.get('server.args'),
    },
    { homeDir: os.homedir(), workspaceFolder: folder },
  );

  // No `transport` on purpose: with `TransportKind.stdio` the client would
  // append `--stdio`, which `wfls serve` does not take; stdio is its default.
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    options: { cwd: folder },
  };

  const watcher = vscode.workspace.createFileSystemWatcher('**/*.wf.{toml,json}');
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { configurationSection: 'wfls', fileEvents: watcher },
    initializationOptions: Object.fromEntries(SERVER_SIDE_SETTINGS.map((key) => [key, config.get(key)])),
    outputChannel: output,
    traceOutputChannel: output,
    diagnosticCollectionName: 'wfls',
  };

  const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  output.appendLine(`Starting ${[launch.command, ...launch.args].join(' ')}`);
  try {
    await client.start();
    running = { client, watcher };
  } catch (err) {
    watcher.dispose();
    await client.dispose().catch(() => undefined);
    output.appendLine(`The server did not start: ${describe(err)}`);
    void reportStartFailure(launch.command, err);
  }
}

async function reportStartFailure(command: string, err: unknown): Promise<void> {
  const openSettings = 'Open Settings';
  const showOutput = 'Show Output';
  const choice = await vscode.window.showErrorMessage(
    `wfls: the language server could not be started with "${command}" (${describe(err)}). ` +
      'Install it with pip (the wfls package), or set wfls.server.path or wfls.server.pythonPath.',
    openSettings,
    showOutput,
  );
  if (choice === openSettings) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'wfls.server');
  } else if (choice === showOutput) {
    output.show(true);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
