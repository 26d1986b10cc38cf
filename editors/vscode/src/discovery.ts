// Finding the wfls server. The candidates, in order:
//
//   1. the `wfls.server.path` setting, then `wfls.server.pythonPath`;
//   2. a `.venv` or `venv` of each workspace folder (trusted workspaces only:
//      the executable comes from the workspace);
//   3. the interpreter selected in the Python extension, as `-m wfls`;
//   4. `wfls` on PATH.
//
// A candidate counts when `<it> --version` answers `wfls <version>`; the
// first one that does is used. Every step is logged, so that when nothing
// works the output says what was tried and why it failed.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface Launch {
  command: string;
  /** Arguments before `serve` (`-m wfls` for an interpreter). */
  prefix: string[];
  /** Where it came from, for the log and the status item. */
  source: string;
}

export interface Found extends Launch {
  version: string;
}

/** The `wfls.server.*` settings; a change of any of them restarts the server. */
export interface LaunchSettings {
  path: string;
  pythonPath: string;
  args: string[];
}

export interface DiscoveryInputs {
  settings: LaunchSettings;
  folders: string[];
  trusted: boolean;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  homeDir: string;
  /** The Python extension's interpreter for the first folder, if it has one. */
  pythonInterpreter(): Promise<string | undefined>;
  /** Runs `command args` and returns its stdout, or throws. */
  run(command: string, args: string[]): Promise<string>;
  log(line: string): void;
}

export function readLaunchSettings(): LaunchSettings {
  const config = vscode.workspace.getConfiguration('wfls');
  const text = (key: string) => {
    const value = config.get<unknown>(key);
    return typeof value === 'string' ? value.trim() : '';
  };
  const args = config.get<unknown>('server.args');
  return {
    path: text('server.path'),
    pythonPath: text('server.pythonPath'),
    args: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [],
  };
}

export function sameLaunchSettings(a: LaunchSettings, b: LaunchSettings): boolean {
  return (
    a.path === b.path &&
    a.pythonPath === b.pythonPath &&
    a.args.length === b.args.length &&
    a.args.every((arg, i) => arg === b.args[i])
  );
}

/**
 * VS Code does not expand variables in extension settings, yet people write
 * `${workspaceFolder}/.venv/bin/wfls` and `~/...`: both are expanded. Without
 * a folder the variable stays, so that the log names what was written.
 */
export function expandPath(value: string, homeDir: string, folder: string | undefined): string {
  let p = value;
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) p = homeDir + p.slice(1);
  if (folder !== undefined) p = p.replaceAll('${workspaceFolder}', folder);
  return p;
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` looked up on PATH (with PATHEXT on Windows), or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  const separator = platform === 'win32' ? ';' : ':';
  const dirs = (env.PATH ?? env.Path ?? '').split(separator).filter(Boolean);
  const extensions =
    platform === 'win32' && !path.extname(name)
      ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)
      : [''];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext.toLowerCase());
      if (isExecutable(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

function venvExecutable(folder: string, venv: string, platform: NodeJS.Platform): string {
  return platform === 'win32'
    ? path.join(folder, venv, 'Scripts', 'wfls.exe')
    : path.join(folder, venv, 'bin', 'wfls');
}

const VERSION = /^wfls\s+(\S+)/m;

async function probe(launch: Launch, inputs: DiscoveryInputs): Promise<Found | undefined> {
  try {
    const out = await inputs.run(launch.command, [...launch.prefix, '--version']);
    const match = VERSION.exec(out);
    if (match) {
      inputs.log(`  ${launch.source}: ${launch.command} answers wfls ${match[1]}`);
      return { ...launch, version: match[1] };
    }
    inputs.log(`  ${launch.source}: ${launch.command} --version printed ${JSON.stringify(out.trim())}, not "wfls <version>"`);
  } catch (err) {
    inputs.log(`  ${launch.source}: ${[launch.command, ...launch.prefix].join(' ')} --version failed: ${describe(err)}`);
  }
  return undefined;
}

/** The first candidate that works, or undefined after logging every attempt. */
export async function findServer(inputs: DiscoveryInputs): Promise<Found | undefined> {
  const { settings, platform } = inputs;
  const folder = inputs.folders[0];
  const log = inputs.log;
  log('Looking for the wfls server:');

  if (settings.path) {
    const expanded = expandPath(settings.path, inputs.homeDir, folder);
    const isName = !expanded.includes('/') && !expanded.includes('\\');
    const command = isName ? onPath(expanded, inputs.env, platform) : expanded;
    if (command === undefined) {
      log(`  wfls.server.path: "${expanded}" is not on PATH (${inputs.env.PATH ?? ''})`);
    } else if (!isName && !isExecutable(command, platform)) {
      log(`  wfls.server.path: ${command} is not an executable file`);
    } else {
      const found = await probe({ command, prefix: [], source: 'wfls.server.path' }, inputs);
      if (found) return found;
    }
  } else {
    log('  wfls.server.path: not set');
  }

  if (settings.pythonPath) {
    const command = expandPath(settings.pythonPath, inputs.homeDir, folder);
    const found = await probe({ command, prefix: ['-m', 'wfls'], source: 'wfls.server.pythonPath' }, inputs);
    if (found) return found;
  } else {
    log('  wfls.server.pythonPath: not set');
  }

  if (!inputs.trusted) {
    log('  workspace virtual environments: skipped, the workspace is not trusted');
  } else if (inputs.folders.length === 0) {
    log('  workspace virtual environments: no folder is open');
  } else {
    for (const dir of inputs.folders) {
      for (const venv of ['.venv', 'venv']) {
        const command = venvExecutable(dir, venv, platform);
        if (!isExecutable(command, platform)) {
          log(`  ${venv} of ${dir}: no ${command}`);
          continue;
        }
        const found = await probe({ command, prefix: [], source: `${venv} of the workspace folder` }, inputs);
        if (found) return found;
      }
    }
  }

  let interpreter: string | undefined;
  try {
    interpreter = await inputs.pythonInterpreter();
  } catch (err) {
    log(`  Python extension: ${describe(err)}`);
  }
  if (interpreter) {
    const found = await probe(
      { command: interpreter, prefix: ['-m', 'wfls'], source: 'the Python extension’s interpreter' },
      inputs,
    );
    if (found) return found;
  } else {
    log('  Python extension: not installed, or no interpreter selected');
  }

  const command = onPath(platform === 'win32' ? 'wfls.exe' : 'wfls', inputs.env, platform);
  if (command === undefined) {
    log(`  PATH: no wfls in ${inputs.env.PATH ?? inputs.env.Path ?? '(empty)'}`);
    return undefined;
  }
  return probe({ command, prefix: [], source: 'PATH' }, inputs);
}

/** The interpreter the Python extension has selected for `folder`, through its API. */
export async function pythonExtensionInterpreter(folder: vscode.Uri | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!extension) return undefined;
  const api = extension.isActive ? extension.exports : await extension.activate();
  const environments = api?.environments;
  if (environments?.getActiveEnvironmentPath) {
    const active = environments.getActiveEnvironmentPath(folder);
    const resolved = environments.resolveEnvironment ? await environments.resolveEnvironment(active) : undefined;
    return resolved?.executable?.uri?.fsPath ?? active?.path;
  }
  const details = api?.settings?.getExecutionDetails?.(folder);
  return details?.execCommand?.[0];
}

/** The parts of the Python extension's API used here (it publishes no types package). */
export interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment?(
      environment: { path: string } | undefined,
    ): Promise<{ executable?: { uri?: { fsPath: string } } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

/** Runs a short command with a deadline (a server that hangs on --version does not count). */
export function runForOutput(command: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 20_000, cwd, windowsHide: true }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message.split('\n')[0]}${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`));
      else resolve(stdout);
    });
  });
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
