// `workspace/executeCommand` requests about a place in a document.
import type * as vscode from 'vscode';
import type { ServerController } from './controller';

export class NotRunning extends Error {
  constructor() {
    super('the wfls server is not running');
  }
}

/** Sends `command` with the argument `{uri, position}` and returns the server's answer. */
export async function executeAt<R>(
  controller: ServerController,
  command: string,
  document: vscode.TextDocument,
  position: vscode.Position,
): Promise<R> {
  const client = controller.running;
  if (!client) throw new NotRunning();
  return client.sendRequest<R>('workspace/executeCommand', {
    command,
    arguments: [{ uri: document.uri.toString(), position: { line: position.line, character: position.character } }],
  });
}
