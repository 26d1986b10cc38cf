// Which documents are workflows: those whose name ends in .wf.toml or
// .wf.json, whatever their language (*.wf.json stays in VS Code's JSON
// language and keeps its JSON features).
// Untitled documents count when they have a path (`code new.wf.toml`).
export const WORKFLOW_SELECTOR: Array<{ scheme: string; pattern: string }> = ['file', 'untitled'].flatMap((scheme) => [
  { scheme, pattern: '**/*.wf.toml' },
  { scheme, pattern: '**/*.wf.json' },
]);

export function isWorkflowDocument(document: { uri: { path: string } }): boolean {
  return /\.wf\.(toml|json)$/.test(document.uri.path);
}
