// Workflow tests in VS Code's Test Explorer: one item per test document of the
// workspace (*.wf.test.toml, *.wf.test.json), one child per case, kept in step
// with the files and with the text of open editors. Runs go to the server
// command `wfls.test`, one request per document, so a document's unsaved edits
// count; a failure is a test message at its expectation, with expected and
// actual side by side. The server's "Run case" code lens names `wfls.test`
// too: the language client hands that command to `runFromCommand` here, so a
// run from the lens shows in the Test Explorer as well.
import * as vscode from 'vscode';
import type { ServerController } from './controller';
import { describe } from './discovery';
import {
  type CaseResult,
  type FileResult,
  type ReportRange,
  type TestCommandArgument,
  TEST_COMMAND,
  TEST_DOCUMENT_GLOB,
  declaredCases,
  diffTexts,
  editorPosition,
  failureText,
  isTestDocument,
  isTestReport,
} from './testDocuments';

export class WorkflowTests implements vscode.Disposable {
  private readonly controller: vscode.TestController;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly server: ServerController) {
    this.controller = vscode.tests.createTestController('wfls', 'Workflow tests');
    this.controller.resolveHandler = async (item) => {
      if (item === undefined) await this.discover();
    };
    this.controller.refreshHandler = () => this.discover();
    this.controller.createRunProfile(
      'Run',
      vscode.TestRunProfileKind.Run,
      async (request, token) => {
        await this.run(request, token);
      },
      true,
    );
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_DOCUMENT_GLOB);
    this.disposables.push(
      this.controller,
      watcher,
      watcher.onDidCreate((uri) => void this.readFile(uri)),
      watcher.onDidChange((uri) => void this.readFile(uri)),
      watcher.onDidDelete((uri) => this.controller.items.delete(uri.toString())),
      vscode.workspace.onDidOpenTextDocument((document) => this.readDocument(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.readDocument(event.document)),
    );
    // Listed at once: the Test Explorer and the gutter show them before anything asks.
    void this.discover();
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }

  /** Every test document of the workspace, listed with its cases. */
  async discover(): Promise<void> {
    const found = await vscode.workspace.findFiles(TEST_DOCUMENT_GLOB, '**/node_modules/**');
    await Promise.all(found.map((uri) => this.readFile(uri)));
  }

  private async readFile(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return this.readDocument(open);
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      this.list(uri, text);
    } catch {
      this.controller.items.delete(uri.toString());
    }
  }

  private readDocument(document: vscode.TextDocument): void {
    if (document.uri.scheme !== 'file' || !isTestDocument(document.uri.path)) return;
    this.list(document.uri, document.getText());
  }

  /** The file's item, its children the cases its text declares (a case's item is kept while its name is). */
  private list(uri: vscode.Uri, text: string): vscode.TestItem {
    const file = this.fileItem(uri);
    const children: vscode.TestItem[] = [];
    for (const declared of declaredCases(text, uri.path)) {
      const id = caseId(declared.name);
      if (children.some((child) => child.id === id)) continue; // the run answers for both
      const item = file.children.get(id) ?? this.controller.createTestItem(id, declared.name, uri);
      item.range = new vscode.Range(declared.line, 0, declared.line, 0);
      children.push(item);
    }
    file.children.replace(children);
    return file;
  }

  private fileItem(uri: vscode.Uri): vscode.TestItem {
    const id = uri.toString();
    let file = this.controller.items.get(id);
    if (!file) {
      file = this.controller.createTestItem(id, vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(file);
    }
    return file;
  }

  /** Runs what `request` includes (everything when nothing is), one `wfls.test` request per document. */
  async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<FileResult[]> {
    const run = this.controller.createTestRun(request);
    const results: FileResult[] = [];
    try {
      for (const [file, cases] of this.planned(request)) {
        if (token.isCancellationRequested) break;
        for (const item of cases ?? collect(file.children)) run.started(item);
        const result = await this.runFile(run, file, cases);
        if (result) results.push(result);
      }
    } finally {
      run.end();
    }
    return results;
  }

  /** The documents to run, each with the cases asked for (`undefined`: all of them). */
  private planned(request: vscode.TestRunRequest): Map<vscode.TestItem, vscode.TestItem[] | undefined> {
    const excluded = new Set(request.exclude ?? []);
    const plan = new Map<vscode.TestItem, vscode.TestItem[] | undefined>();
    const included = request.include ?? collect(this.controller.items);
    for (const item of included) {
      if (excluded.has(item)) continue;
      const file = item.parent ?? item;
      if (item === file) {
        const cases = collect(file.children).filter((child) => !excluded.has(child));
        plan.set(file, cases.length === file.children.size ? undefined : cases);
      } else if (plan.has(file)) {
        plan.get(file)?.push(item);
      } else {
        plan.set(file, [item]);
      }
    }
    return plan;
  }

  private async runFile(
    run: vscode.TestRun,
    file: vscode.TestItem,
    cases: vscode.TestItem[] | undefined,
  ): Promise<FileResult | undefined> {
    const uri = file.uri as vscode.Uri;
    const everything = cases ?? collect(file.children);
    const client = this.server.running;
    if (!client) {
      for (const item of everything) run.errored(item, new vscode.TestMessage('the wfls server is not running'));
      return undefined;
    }
    // An open document is the server's as the editor has it; the others are read from disk.
    const document = await vscode.workspace.openTextDocument(uri);
    const argument: TestCommandArgument = { uri: uri.toString(), cases: cases ? cases.map((c) => c.label) : null };
    let answer: unknown;
    try {
      answer = await client.sendRequest('workspace/executeCommand', { command: TEST_COMMAND, arguments: [argument] });
    } catch (err) {
      for (const item of everything) run.errored(item, new vscode.TestMessage(`wfls.test failed: ${describe(err)}`));
      return undefined;
    }
    const result = isTestReport(answer) ? answer.files[0] : undefined;
    if (!result) {
      for (const item of everything) run.errored(item, new vscode.TestMessage('the server answered without a test report'));
      return undefined;
    }
    const at = (range: ReportRange) => this.location(document, range);
    if (result.error) {
      const message = new vscode.TestMessage(result.error.message);
      message.location = at(result.error.range);
      for (const item of everything) run.errored(item, message);
      return result;
    }
    const seen = new Set<string>();
    for (const outcome of result.cases) {
      const item = this.caseItem(run, file, uri, outcome);
      item.range = at(outcome.range).range;
      seen.add(item.id);
      report(run, item, outcome, at);
    }
    for (const item of everything) if (!seen.has(item.id)) run.skipped(item);
    return result;
  }

  /** The item of a case the server ran: the listed one, or one made now (a name the cheap reading missed). */
  private caseItem(run: vscode.TestRun, file: vscode.TestItem, uri: vscode.Uri, outcome: CaseResult): vscode.TestItem {
    const id = caseId(outcome.name);
    let item = file.children.get(id);
    if (!item) {
      item = this.controller.createTestItem(id, outcome.name, uri);
      file.children.add(item);
      run.started(item);
    }
    return item;
  }

  private location(document: vscode.TextDocument, range: ReportRange): vscode.Location {
    const lineText = (line: number) => (line < document.lineCount ? document.lineAt(line).text : undefined);
    const start = editorPosition(range.start, lineText);
    const end = editorPosition(range.end, lineText);
    return new vscode.Location(
      document.uri,
      new vscode.Range(start.line, start.character, end.line, end.character),
    );
  }

  /**
   * `wfls.test` as a command (the server's code lens): the cases named are run
   * through the Test Explorer, whose results show, and the server's answer is returned.
   */
  async runFromCommand(args: unknown[]): Promise<unknown> {
    const argument = args[0] as Partial<TestCommandArgument> | undefined;
    if (typeof argument?.uri !== 'string') return null;
    const uri = vscode.Uri.parse(argument.uri);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const file = open ? this.list(uri, open.getText()) : (await this.readFile(uri), this.fileItem(uri));
    const names = Array.isArray(argument.cases) ? argument.cases : null;
    const include = names ? collect(file.children).filter((item) => names.includes(item.label)) : [file];
    const source = new vscode.CancellationTokenSource();
    try {
      const [result] = await this.run(new vscode.TestRunRequest(include.length > 0 ? include : [file]), source.token);
      return result ? { files: [result] } : null;
    } finally {
      source.dispose();
    }
  }
}

/** A case's id: its name, unique among its document's (an id needs to be unique only among its siblings). */
function caseId(name: string): string {
  return name;
}

function collect(items: vscode.TestItemCollection): vscode.TestItem[] {
  const all: vscode.TestItem[] = [];
  items.forEach((item) => all.push(item));
  return all;
}

function report(
  run: vscode.TestRun,
  item: vscode.TestItem,
  outcome: CaseResult,
  at: (range: ReportRange) => vscode.Location,
): void {
  const messages = outcome.failures.map((failure) => {
    const diff = diffTexts(failure);
    const message = diff
      ? vscode.TestMessage.diff(failureText(failure), diff.expected, diff.actual)
      : new vscode.TestMessage(failureText(failure));
    message.location = at(failure.range);
    return message;
  });
  if (outcome.status === 'passed') {
    run.passed(item, outcome.duration_ms);
  } else if (outcome.status === 'failed') {
    run.failed(item, messages, outcome.duration_ms);
  } else {
    const fallback = new vscode.TestMessage('the case could not run');
    fallback.location = at(outcome.range);
    run.errored(item, messages.length > 0 ? messages : fallback, outcome.duration_ms);
  }
}
