// How the language server is launched, kept free of the `vscode` module so
// that the tests can check it in plain node.

export interface ServerSettings {
  /** `wfls.server.path`: the `wfls` executable, on PATH or absolute. */
  path: unknown;
  /** `wfls.server.pythonPath`: when set, the server runs as `<python> -m wfls serve`. */
  pythonPath: unknown;
  /** `wfls.server.args`: appended after `serve`. */
  args: unknown;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export interface ExpandContext {
  homeDir: string;
  /** The first workspace folder, if the window has one. */
  workspaceFolder?: string;
}

export const DEFAULT_SERVER_PATH = 'wfls';

/**
 * The command line for the server. The settings come from user JSON, so
 * every value is checked: a wrong type falls back to the default rather
 * than failing the launch.
 */
export function serverCommand(settings: ServerSettings, ctx: ExpandContext): ServerCommand {
  const extra = Array.isArray(settings.args)
    ? settings.args.filter((a): a is string => typeof a === 'string')
    : [];
  const python = asPath(settings.pythonPath, ctx);
  if (python) {
    // `-m` needs no console script on PATH, only the package in that
    // interpreter, which is what a virtual environment usually gives.
    return { command: python, args: ['-m', 'wfls', 'serve', ...extra] };
  }
  return { command: asPath(settings.path, ctx) || DEFAULT_SERVER_PATH, args: ['serve', ...extra] };
}

/**
 * VS Code does not expand variables in extension settings, yet users write
 * `${workspaceFolder}/.venv/bin/python` and `~/...` out of habit; both are
 * expanded here. A `${workspaceFolder}` without an open folder is left as
 * is, so that the launch error names the path the user wrote.
 */
function asPath(value: unknown, ctx: ExpandContext): string {
  if (typeof value !== 'string') return '';
  let p = value.trim();
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) {
    p = ctx.homeDir + p.slice(1);
  }
  if (ctx.workspaceFolder !== undefined) {
    p = p.replaceAll('${workspaceFolder}', ctx.workspaceFolder);
  }
  return p;
}

/** The settings that the server itself reads, also sent as `initializationOptions`. */
export const SERVER_SIDE_SETTINGS = ['undeclaredPropertySeverity', 'hintDeprecatedKeys', 'extraGlobs'] as const;
