// The messages between the extension (src/graphPanel.ts) and the graph view in
// its webview (src/graph/webview/main.ts).
import type { Activation, Graph } from './model';

/** What the extension sends the view. */
export type ToView =
  | { type: 'graph'; graph: Graph }
  | { type: 'highlight'; id: string | null }
  | { type: 'trace'; activations: Activation[] | null; note?: string }
  | { type: 'message'; text: string };

/** What the view sends the extension. */
export type FromView =
  | { type: 'ready' }
  | { type: 'reveal'; id: string }
  | { type: 'openChild'; node: string }
  | { type: 'save'; format: 'svg' | 'png'; data: string; name: string };
