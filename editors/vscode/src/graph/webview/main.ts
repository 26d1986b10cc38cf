// The graph view's entry point, bundled into graph-view.js. In VS Code's webview
// it talks to the extension by messages (see src/graphPanel.ts); in the page that
// `wfls graph --format html` writes it reads the graph embedded in the page and
// needs nothing else.
import type { FromView, ToView } from '../messages';
import { type Activation, type Graph, childLocation } from '../model';
import { type Host, GraphView } from './view';

interface VsCodeApi {
  postMessage(message: unknown): void;
}

declare const acquireVsCodeApi: (() => VsCodeApi) | undefined;

/** The data a standalone page embeds (`<script type="application/json" id="wfls-graph-data">`). */
interface Embedded {
  graph: Graph;
  trace?: Activation[] | null;
  source?: string | null;
}

function inVsCode(api: VsCodeApi): void {
  const post = (message: FromView) => api.postMessage(message);
  const host: Host = {
    reveal: (id) => post({ type: 'reveal', id }),
    openChild: (node) => post({ type: 'openChild', node }),
    save: (format, data, name) => post({ type: 'save', format, data, name }),
  };
  const view = new GraphView(document.body, host);
  view.root.dataset.host = 'vscode';
  window.addEventListener('message', (event: MessageEvent<ToView>) => {
    const message = event.data;
    switch (message.type) {
      case 'graph':
        view.setGraph(message.graph);
        break;
      case 'highlight':
        view.highlight(message.id);
        break;
      case 'trace':
        view.setTrace(message.activations, message.note);
        break;
      case 'message':
        view.showMessage(message.text);
        break;
    }
  });
  post({ type: 'ready' });
}

function standalone(): void {
  const data = document.getElementById('wfls-graph-data')?.textContent;
  const embedded = data ? (JSON.parse(data) as Embedded) : null;
  let view: GraphView;
  const host: Host = {
    reveal: (id) => {
      const node = embedded?.graph.nodes.find((n) => n.id === id);
      const at = node?.range ? `line ${node.range.start.line}` : 'no position';
      view.highlight(id);
      view.showMessage(`${id}: ${embedded?.source ?? 'the document'}, ${at}`);
    },
    openChild: (node) => {
      const sub = embedded?.graph.subgraphs.find((s) => s.node === node);
      const child = sub ? childLocation(sub) : null;
      view.showMessage(child ? `${node} runs ${sub?.workflow} (${child})` : `${node}: no document declares its workflow`);
    },
    save: (format, data, name) => {
      const link = document.createElement('a');
      link.download = name;
      link.href = format === 'svg' ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(data)}` : `data:image/png;base64,${data}`;
      document.body.append(link);
      link.click();
      link.remove();
    },
  };
  view = new GraphView(document.body, host);
  view.root.dataset.host = 'page';
  if (!embedded) {
    view.showMessage('This page holds no graph.');
    return;
  }
  view.setGraph(embedded.graph);
  if (embedded.trace) view.setTrace(embedded.trace, 'last run');
}

if (typeof acquireVsCodeApi === 'function') inVsCode(acquireVsCodeApi());
else standalone();
