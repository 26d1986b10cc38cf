// Owns the language client: finds the server, starts, restarts and stops it,
// and tells listeners what state it is in. Restarts are queued so that two
// servers never run at once, and a restart asked for while another is still
// waiting replaces it. Every start has a deadline, so that a server that
// never answers cannot block the restarts that come after it.
import type { Found, LaunchSettings } from './discovery';
import { describe, sameLaunchSettings } from './discovery';

/** The part of vscode-languageclient's LanguageClient used here. */
export interface ServerClient {
  start(): Promise<void>;
  dispose(timeout?: number): Promise<void>;
  readonly initializeResult:
    | {
        serverInfo?: { name: string; version?: string };
        capabilities: { executeCommandProvider?: { commands: string[] } };
      }
    | undefined;
  sendRequest<R>(method: string, param: unknown): Promise<R>;
  sendNotification(method: string, param: unknown): Promise<void>;
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => unknown): { dispose(): unknown };
}

/** vscode-languageclient's State.Stopped. */
const CLIENT_STOPPED = 1;

export type ServerState =
  | { kind: 'starting' }
  | { kind: 'running'; version: string; found: Found; commands: string[] }
  | { kind: 'missing' }
  | { kind: 'failed'; reason: string };

export interface ControllerDeps {
  readSettings(): LaunchSettings;
  find(settings: LaunchSettings): Promise<Found | undefined>;
  createClient(found: Found, args: string[]): ServerClient;
  /** The `wfls` section as the server reads it, for `workspace/didChangeConfiguration`. */
  serverSettings(): unknown;
  log(line: string): void;
  /** Nothing to start: tell the user once, with a way to the setting. */
  reportMissing(): void;
  reportStartFailure(found: Found, reason: string): void;
  startTimeoutMs?: number;
}

interface ConfigurationChange {
  affectsConfiguration(section: string): boolean;
}

export class ServerController {
  private client: ServerClient | undefined;
  private clientState: { dispose(): unknown } | undefined;
  private queue: Promise<void> = Promise.resolve();
  private wanted = 0;
  private disposed = false;
  /** The `wfls.server.*` values the current server was started with. */
  private launchSettings: LaunchSettings | undefined;
  private listeners: Array<(state: ServerState) => void> = [];
  private _state: ServerState = { kind: 'starting' };

  constructor(private readonly deps: ControllerDeps) {}

  get state(): ServerState {
    return this._state;
  }

  /** The running client, if any. */
  get running(): ServerClient | undefined {
    return this._state.kind === 'running' ? this.client : undefined;
  }

  onDidChangeState(listener: (state: ServerState) => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  private setState(state: ServerState): void {
    this._state = state;
    for (const listener of this.listeners) listener(state);
  }

  /** Resolves when every restart asked for so far has finished. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Stops the server if it runs, then starts one with the current settings. */
  restart(reason: string): Promise<void> {
    const ticket = ++this.wanted;
    this.queue = this.queue
      .then(async () => {
        if (ticket !== this.wanted || this.disposed) return; // a later restart replaces this one
        this.deps.log(`${reason}: (re)starting the server`);
        await this.stopClient();
        if (ticket !== this.wanted || this.disposed) return;
        await this.startClient();
      })
      .catch((err) => this.deps.log(`Restart failed: ${describe(err)}`));
    return this.queue;
  }

  /**
   * Any configuration change: a different `wfls.server.*` value restarts the
   * server, another `wfls.*` change goes to it as `workspace/didChangeConfiguration`.
   *
   * The launch settings are compared by value instead of trusting
   * `affectsConfiguration('wfls.server')`: VS Code may deliver a setting late
   * or report a change under another key, and then only a comparison notices it.
   */
  onConfigurationChanged(change: ConfigurationChange): void {
    if (this.disposed) return;
    const settings = this.deps.readSettings();
    if (this.launchSettings === undefined || !sameLaunchSettings(settings, this.launchSettings)) {
      void this.restart('The wfls.server settings changed');
      return;
    }
    if (change.affectsConfiguration('wfls') && !change.affectsConfiguration('wfls.server')) {
      const client = this.running;
      if (client) {
        client
          .sendNotification('workspace/didChangeConfiguration', { settings: this.deps.serverSettings() })
          .catch((err) => this.deps.log(`Sending the settings failed: ${describe(err)}`));
      }
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.wanted++;
    await this.queue;
    await this.stopClient();
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientState?.dispose();
    this.clientState = undefined;
    if (!client) return;
    try {
      await client.dispose(2_000);
    } catch (err) {
      // A server that already died cannot be stopped; it is gone either way.
      this.deps.log(`Stopping the server: ${describe(err)}`);
    }
  }

  private async startClient(): Promise<void> {
    this.setState({ kind: 'starting' });
    const settings = this.deps.readSettings();
    this.launchSettings = settings;
    const found = await this.deps.find(settings);
    if (!found) {
      this.deps.log('No wfls server was found.');
      this.setState({ kind: 'missing' });
      this.deps.reportMissing();
      return;
    }
    const client = this.deps.createClient(found, settings.args);
    this.client = client;
    this.deps.log(`Starting ${[found.command, ...found.prefix, 'serve', ...settings.args].join(' ')} (from ${found.source})`);
    const timeoutMs = this.deps.startTimeoutMs ?? 60_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        client.start(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer to initialize within ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      const reason = describe(err);
      this.deps.log(`The server did not start: ${reason}`);
      await this.stopClient();
      this.setState({ kind: 'failed', reason });
      this.deps.reportStartFailure(found, reason);
      return;
    } finally {
      clearTimeout(timer);
    }
    const result = client.initializeResult;
    const version = result?.serverInfo?.version ?? found.version;
    const commands = result?.capabilities.executeCommandProvider?.commands ?? [];
    this.clientState = client.onDidChangeState((e) => {
      // The client restarts a crashing server a few times, then gives up.
      if (e.newState === CLIENT_STOPPED && this.client === client && this._state.kind === 'running') {
        this.setState({ kind: 'failed', reason: 'the server stopped' });
      }
    });
    this.setState({ kind: 'running', version, found, commands });
  }
}
