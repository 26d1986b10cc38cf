// Workflow test documents (*.wf.test.toml, *.wf.test.json) as the Test Explorer
// needs them, with no `vscode` import so that they are tested on their own: the
// cases a document declares, read cheaply from its text to list them before any
// run, and the answer of the server command `wfls.test` (the shape
// `wfls test --format json` prints), with its positions (1-based lines,
// code-point columns) turned into the editor's (0-based, UTF-16).

/** Test documents, by their names, in the schemes the server is given. */
export const TEST_DOCUMENT_GLOB = '**/*.wf.test.{toml,json}';
export const TEST_SELECTOR: Array<{ scheme: string; pattern: string }> = ['file', 'untitled'].flatMap((scheme) => [
  { scheme, pattern: '**/*.wf.test.toml' },
  { scheme, pattern: '**/*.wf.test.json' },
]);

export function isTestDocument(path: string): boolean {
  return /\.wf\.test\.(toml|json)$/.test(path);
}

/** One case as the document declares it: its name and the 0-based line of its `[[case]]` (or its object in JSON). */
export interface DeclaredCase {
  name: string;
  line: number;
}

const TOML_CASE_HEADER = /^\s*\[\[\s*case\s*\]\]\s*(#.*)?$/;
const TOML_TABLE_HEADER = /^\s*\[/;
const TOML_NAME = /^\s*name\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/;

/**
 * The cases of a test document, in order, read from its text without a parser:
 * in TOML each `[[case]]` header and the `name` among its own keys; in JSON the
 * `name` of each object of the top-level `case` array. A case without a readable
 * name is left out; the server's answer to a run names every case anyway.
 */
export function declaredCases(text: string, path: string): DeclaredCase[] {
  return path.endsWith('.json') ? jsonCases(text) : tomlCases(text);
}

function tomlCases(text: string): DeclaredCase[] {
  const lines = text.split(/\r?\n/);
  const cases: DeclaredCase[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!TOML_CASE_HEADER.test(lines[i])) continue;
    for (let j = i + 1; j < lines.length && !TOML_TABLE_HEADER.test(lines[j]); j++) {
      const name = TOML_NAME.exec(lines[j]);
      if (name) {
        const value = tomlString(name[1]);
        if (value !== undefined) cases.push({ name: value, line: i });
        break;
      }
    }
  }
  return cases;
}

/** A TOML basic or literal string's value (basic strings escape as JSON does, but for `\U` and `\e`). */
function tomlString(literal: string): string | undefined {
  if (literal.startsWith("'")) return literal.slice(1, -1);
  try {
    const value: unknown = JSON.parse(
      literal
        .replace(/\\U([0-9A-Fa-f]{8})/g, (_, hex: string) => jsonEscape(String.fromCodePoint(parseInt(hex, 16))))
        .replace(/\\e/g, '\\u001b'),
    );
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function jsonCases(text: string): DeclaredCase[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return [];
  }
  const list = (document as { case?: unknown } | null)?.case;
  if (!Array.isArray(list)) return [];
  const cases: DeclaredCase[] = [];
  let from = 0;
  for (const entry of list) {
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') continue;
    // Its "name" key, after the previous case's: the line the case is listed on.
    const pattern = new RegExp(`"name"\\s*:\\s*${escapeRegExp(JSON.stringify(name))}`, 'g');
    pattern.lastIndex = from;
    const found = pattern.exec(text) ?? findEscaped(text, name, from);
    if (!found) continue;
    from = found.index + found[0].length;
    cases.push({ name, line: lineOf(text, found.index) });
  }
  return cases;
}

/** A name the document writes with escapes JSON.stringify would not use (`\u00e9`): the next "name" key. */
function findEscaped(text: string, name: string, from: number): RegExpExecArray | null {
  const pattern = /"name"\s*:\s*"(?:[^"\\]|\\.)*"/g;
  pattern.lastIndex = from;
  for (let found = pattern.exec(text); found; found = pattern.exec(text)) {
    const value = JSON.parse(found[0].slice(found[0].indexOf(':') + 1)) as string;
    if (value === name) return found;
  }
  return null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

// -- the answer of `wfls.test` (and `wfls test --format json`) -------------------------

export interface ReportPosition {
  line: number; // 1-based
  column: number; // 1-based, in code points
}
export interface ReportRange {
  start: ReportPosition;
  end: ReportPosition;
}
export interface CaseFailure {
  message: string;
  range: ReportRange;
  expected: unknown;
  actual: unknown;
  activations?: string[];
}
export interface CaseResult {
  name: string;
  range: ReportRange;
  status: 'passed' | 'failed' | 'error';
  duration_ms: number;
  failures: CaseFailure[];
}
export interface FileResult {
  path: string;
  workflow: string | null;
  error: { message: string; range: ReportRange } | null;
  cases: CaseResult[];
}
export interface TestReport {
  files: FileResult[];
  summary: { passed: number; failed: number; errors: number };
}

/** The arguments of `wfls.test`: one document, all its cases (`null`) or those named. */
export interface TestCommandArgument {
  uri: string;
  cases: string[] | null;
}
export const TEST_COMMAND = 'wfls.test';

/** Whether `value` has the shape of a report (what a server answers is not trusted blindly). */
export function isTestReport(value: unknown): value is TestReport {
  const report = value as TestReport | null;
  return (
    typeof report === 'object' &&
    report !== null &&
    Array.isArray(report.files) &&
    report.files.every((file) => typeof file === 'object' && file !== null && Array.isArray(file.cases))
  );
}

/** A 0-based line and UTF-16 character, as the editor counts. */
export interface EditorPosition {
  line: number;
  character: number;
}

/**
 * The editor's position of a report's: the line's text is needed to count a
 * column of code points in UTF-16 units (a column past the line's end stays past it).
 */
export function editorPosition(position: ReportPosition, lineText: (line: number) => string | undefined): EditorPosition {
  const line = Math.max(position.line - 1, 0);
  const text = lineText(line) ?? '';
  const points = Array.from(text);
  const before = points.slice(0, Math.max(position.column - 1, 0)).join('');
  const beyond = Math.max(position.column - 1 - points.length, 0);
  return { line, character: before.length + beyond };
}

/** The text of a failure's message in the editor: the message, then the activations that led there. */
export function failureText(failure: CaseFailure): string {
  const path = failure.activations && failure.activations.length > 0 ? `\nactivations: ${failure.activations.join(' > ')}` : '';
  return failure.message + path;
}

/** Expected and actual as the diff view shows them (JSON, indented); undefined when either is missing. */
export function diffTexts(failure: CaseFailure): { expected: string; actual: string } | undefined {
  if (failure.expected === null || failure.expected === undefined) return undefined;
  if (failure.actual === undefined) return undefined;
  return { expected: JSON.stringify(failure.expected, null, 2), actual: JSON.stringify(failure.actual, null, 2) };
}
