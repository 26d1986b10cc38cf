// code-server (VS Code in the browser) in a throwaway sandbox: its own user
// data, extensions and config under a temporary folder, listening on a free
// port of 127.0.0.1 only.
import { spawn, execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { until } from './wait.mjs';

const run = promisify(execFile);

/** A port that was free a moment ago. */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class CodeServer {
  /**
   * @param {object} options
   * @param {string} options.node     Node 24
   * @param {string} options.entry    code-server's out/node/entry.js
   * @param {string} options.sandbox  a temporary folder owned by this run
   */
  constructor({ node, entry, sandbox }) {
    this.node = node;
    this.entry = entry;
    this.userData = path.join(sandbox, 'user-data');
    this.extensions = path.join(sandbox, 'extensions');
    this.config = path.join(sandbox, 'config.yaml');
    this.log = [];
    // code-server falls back to ~/.config/code-server and ~/.local/share/code-server
    // for anything not given explicitly: point those at the sandbox too.
    this.env = {
      ...process.env,
      XDG_CONFIG_HOME: path.join(sandbox, 'xdg-config'),
      XDG_DATA_HOME: path.join(sandbox, 'xdg-data'),
    };
    /** @type {import('node:child_process').ChildProcess | undefined} */
    this.process = undefined;
  }

  args(...rest) {
    return [
      this.entry,
      '--config', this.config,
      '--user-data-dir', this.userData,
      '--extensions-dir', this.extensions,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      ...rest,
    ];
  }

  /** The user settings, written before start (VS Code reads them at start-up). */
  writeSettings(settings) {
    const file = path.join(this.userData, 'User', 'settings.json');
    writeFileSync(file, JSON.stringify(settings, null, 2) + '\n');
    return file;
  }

  async installExtension(vsix) {
    this.writeConfig(0);
    const { stdout, stderr } = await run(this.node, this.args('--install-extension', vsix, '--force'), {
      env: this.env,
      timeout: 120_000,
    });
    const said = `${stdout}\n${stderr}`;
    if (!/was successfully installed/.test(said)) {
      throw new Error(`installing ${vsix} failed:\n${said}`);
    }
  }

  writeConfig(port) {
    writeFileSync(this.config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  }

  /** Starts code-server on a free port, opening ``folder``; resolves once it answers /healthz. */
  async start(folder, { timeoutMs = 60_000 } = {}) {
    this.port = await freePort();
    this.writeConfig(this.port);
    this.process = spawn(this.node, this.args(folder), {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so that stop() ends its children too
    });
    for (const stream of [this.process.stdout, this.process.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => this.log.push(chunk));
    }
    const url = `http://127.0.0.1:${this.port}`;
    await until(
      timeoutMs,
      'code-server answers /healthz',
      async () => {
        if (this.process.exitCode !== null) {
          throw new Error(`code-server exited with ${this.process.exitCode}:\n${this.log.join('')}`);
        }
        try {
          const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
          return response.ok;
        } catch {
          return false; // not listening yet
        }
      },
      { every: 250 },
    );
    this.url = url;
    return url;
  }

  /** What an extension wrote to its output channel `name` (VS Code keeps a log file per channel). */
  outputLog(name) {
    const found = [];
    const walk = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(`-${name}.log`)) found.push(full);
      }
    };
    try {
      walk(path.join(this.userData, 'logs'));
    } catch {
      return '';
    }
    return found.map((file) => readFileSync(file, 'utf8')).join('\n');
  }

  async stop() {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const gone = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!gone) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
