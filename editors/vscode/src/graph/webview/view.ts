// The interactive graph: Graphviz lays out the DOT of dot.ts, and this draws its
// SVG with pan and zoom, the node under the editor's cursor highlighted, loops
// that collapse and expand, a run's counts overlaid, and export to SVG and PNG.
// The same view runs in VS Code's webview and in the standalone page of
// `wfls graph --format html`; what a click does is up to its `Host`.
import { instance, type Viz } from '@viz-js/viz';
import { COLLAPSE_ABOVE, type DotDrawing, defaultCollapsed, loopTitle, toDot } from '../dot';
import { type Activation, type Graph, type TraceOverlay, childLocation, traceOverlay } from '../model';
import { GRAPH_CSS, PALETTE } from './style';

export interface Host {
  /** A node was clicked: show its entry in the document. */
  reveal(id: string): void;
  /** The child workflow of a subgraph node was clicked. */
  openChild(node: string): void;
  /** Save an export: the SVG text, or a PNG as base64. */
  save(format: 'svg' | 'png', data: string, name: string): void;
}

interface Transform {
  x: number;
  y: number;
  k: number;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const EXPAND_ALL = 'Draw every loop with its body (a click on a collapsed loop expands it)';
const MIN_ZOOM = 0.05;
const MAX_ZOOM = 4;

function button(action: string, text: string, title: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.dataset.action = action;
  b.textContent = text;
  b.title = title;
  b.type = 'button';
  return b;
}

export class GraphView {
  readonly root: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly stage: HTMLElement;
  private readonly status: HTMLElement;
  private readonly title: HTMLElement;
  private readonly expandAll = button('expand-all', 'Expand all', EXPAND_ALL);
  /** Graphviz, compiled from the bundled WebAssembly as soon as the view starts. */
  private readonly viz: Promise<Viz> = instance();
  private graph: Graph | null = null;
  private drawing: DotDrawing | null = null;
  private svg: SVGSVGElement | null = null;
  private size = { width: 0, height: 0 };
  private transform: Transform = { x: 0, y: 0, k: 1 };
  private placed = false;
  /** Whether the user has panned or zoomed: until then a resized view places the graph anew. */
  private moved = false;
  private readonly collapsed = new Set<string>();
  private readonly knownLoops = new Set<string>();
  private overlay: TraceOverlay | null = null;
  private traceNote = '';
  private highlighted: string | null = null;
  private rendering = false;
  private pending = false;
  private renders = 0;

  constructor(
    parent: HTMLElement,
    private readonly host: Host,
  ) {
    this.root = document.createElement('div');
    this.root.id = 'wfls-graph';
    this.root.className = 'wf-root';
    this.root.dataset.state = 'loading';
    const toolbar = document.createElement('div');
    toolbar.className = 'wf-toolbar';
    this.title = document.createElement('span');
    this.title.className = 'wf-title';
    toolbar.append(
      this.title,
      button('fit', 'Fit', 'Fit the whole graph in the view'),
      button('zoom-in', '+', 'Zoom in'),
      button('zoom-out', '−', 'Zoom out'),
      button('collapse-all', 'Collapse all', 'Draw every outermost loop as one node (a click on a loop’s title collapses it)'),
      this.expandAll,
      button('export-svg', 'SVG', 'Export the graph as SVG'),
      button('export-png', 'PNG', 'Export the graph as PNG'),
    );
    this.status = document.createElement('span');
    this.status.className = 'wf-status';
    toolbar.append(this.status);
    this.canvas = document.createElement('div');
    this.canvas.className = 'wf-canvas';
    this.stage = document.createElement('div');
    this.stage.className = 'wf-stage';
    this.canvas.append(this.stage);
    this.root.append(toolbar, this.canvas);
    parent.append(this.root);
    toolbar.addEventListener('click', (event) => {
      const action = (event.target as HTMLElement).closest('button')?.dataset.action;
      if (action) this.act(action);
    });
    this.listen();
    new ResizeObserver(() => {
      if (this.svg && !this.moved) {
        this.place();
        this.apply();
      }
    }).observe(this.canvas);
  }

  /** Shows `graph`, keeping the viewport, the collapsed loops and the highlight. */
  setGraph(graph: Graph): void {
    const fresh = this.graph === null;
    this.graph = graph;
    const defaults = defaultCollapsed(graph);
    for (const loop of graph.loops) {
      if (this.knownLoops.has(loop.id)) continue;
      this.knownLoops.add(loop.id);
      if (defaults.has(loop.id)) this.collapsed.add(loop.id);
    }
    this.title.textContent = graph.workflow !== null ? `workflow ${graph.workflow}` : 'workflow';
    // Graphviz takes a minute for the whole of a workflow of thousands of nodes: large
    // ones are expanded a loop at a time.
    const large = graph.nodes.length > COLLAPSE_ABOVE;
    this.expandAll.disabled = large;
    this.expandAll.title = large
      ? `${graph.nodes.length} nodes are too many to lay out at once: a click on a collapsed loop expands it`
      : EXPAND_ALL;
    if (fresh) this.placed = false;
    this.draw();
  }

  /** Overlays a run: per node its activations and last outcome, per edge how often it was taken. */
  setTrace(activations: readonly Activation[] | null, note = ''): void {
    this.overlay = activations ? traceOverlay(activations) : null;
    this.traceNote = activations ? note : '';
    if (this.graph) this.draw();
  }

  /** Highlights the node `id` (the node under the editor's cursor), or nothing. */
  highlight(id: string | null): void {
    this.highlighted = id;
    this.applyHighlight(true);
  }

  showMessage(text: string): void {
    this.status.textContent = text;
  }

  /** Lays the graph out again; renders asked for during one run once after it, with the latest state. */
  private draw(): void {
    if (this.rendering) {
      this.pending = true;
      return;
    }
    this.rendering = true;
    void this.render().finally(() => {
      this.rendering = false;
      if (this.pending) {
        this.pending = false;
        this.draw();
      }
    });
  }

  private async render(): Promise<void> {
    const graph = this.graph;
    if (!graph) return;
    const started = performance.now();
    const drawing = toDot(graph, { collapsed: this.collapsed, trace: this.overlay });
    if (drawing.nodeElement.size > 300) {
      // Graphviz holds the page while it works: say so first, and let the page show it.
      this.showMessage(`Laying out ${drawing.nodeElement.size} nodes…`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let svg: SVGSVGElement;
    try {
      const viz = await this.viz;
      svg = viz.renderSVGElement(drawing.dot);
    } catch (error) {
      this.root.dataset.state = 'failed';
      this.showMessage(`The graph could not be laid out: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.decorate(svg, graph, drawing);
    this.stage.replaceChildren(svg);
    this.svg = svg;
    this.drawing = drawing;
    if (!this.placed) {
      this.place();
      this.placed = true;
    }
    this.apply();
    this.applyHighlight(false);
    this.renders += 1;
    const ms = Math.round(performance.now() - started);
    const shown = drawing.nodeElement.size;
    const hidden = graph.nodes.length - shown;
    const parts = [`${graph.nodes.length} nodes`];
    if (hidden > 0) parts.push(`${hidden} inside collapsed loops`);
    if (this.traceNote) parts.push(this.traceNote);
    this.status.textContent = parts.join(' · ');
    Object.assign(this.root.dataset, {
      state: 'ready',
      nodes: String(shown),
      renders: String(this.renders),
      renderMs: String(ms),
    });
    // How long after the page started the first drawing was ready (what a test measures).
    this.root.dataset.firstReadyMs ??= String(Math.round(performance.now()));
  }

  /** Ties the drawn elements to the graph: data attributes, tooltips, the styles. */
  private decorate(svg: SVGSVGElement, graph: Graph, drawing: DotDrawing): void {
    svg.classList.add('wf-svg');
    const viewBox = svg.viewBox.baseVal;
    this.size = { width: viewBox.width, height: viewBox.height };
    svg.setAttribute('width', String(viewBox.width));
    svg.setAttribute('height', String(viewBox.height));
    const style = document.createElementNS(SVG_NS, 'style');
    style.textContent = GRAPH_CSS;
    svg.prepend(style);
    const byId = (id: string) => svg.querySelector<SVGGElement>(`[id="${id}"]`);
    const setTitle = (element: Element, text: string) => {
      const title = element.querySelector(':scope > title') ?? element.appendChild(document.createElementNS(SVG_NS, 'title'));
      title.textContent = text;
    };
    const subgraphs = new Map(graph.subgraphs.map((s) => [s.node, s]));
    const unreachable = new Set(graph.unreachable ?? []);
    for (const [i, elementId] of drawing.nodeElement) {
      const element = byId(elementId);
      if (!element) continue;
      const node = graph.nodes[i];
      element.dataset.node = node.id;
      const lines = [`${node.id} (${node.type ?? 'no type'})`];
      if (graph.start === node.id) lines.push('the start node');
      if (node.severity) lines.push(node.message ? `${node.severity}: ${node.message}` : node.severity);
      if (unreachable.has(node.id)) lines.push('unreachable from the start');
      if (node.owner_stack?.length) lines.push(`owner stack: ${node.owner_stack.join(' > ')}`);
      const sub = subgraphs.get(node.id);
      const child = sub ? childLocation(sub) : null;
      if (sub) lines.push(child ? `runs ${sub.workflow ?? '?'} (${child})` : `runs ${sub.workflow ?? '?'}: no document declares it`);
      const ran = this.overlay?.nodes.get(node.id);
      if (this.overlay) lines.push(ran ? `last run: ${ran.count} activation(s), last outcome ${ran.last}` : 'last run: did not run');
      setTitle(element, lines.join('\n'));
    }
    for (const [elementId, loopId] of drawing.loopElement) {
      const element = byId(elementId);
      if (!element) continue;
      element.dataset.loop = loopId;
      const loop = graph.loops.find((l) => l.id === loopId);
      const action = elementId.startsWith('wc-') ? 'click to expand' : 'click its title to collapse';
      setTitle(element, `${loop ? loopTitle(loop) : loopId} (${action})`);
    }
    for (const [elementId, indexes] of drawing.edgeElement) {
      const element = byId(elementId);
      if (!element) continue;
      const edge = graph.edges[indexes[0]];
      Object.assign(element.dataset, { from: edge.from, outcome: edge.outcome ?? '', to: edge.to });
      const describe = (i: number) => {
        const { from, outcome, to, valid, problems } = graph.edges[i];
        const wrong = valid ? '' : ` (${(problems ?? ['invalid']).join(', ')})`;
        return `${from} —${outcome ?? '?'}→ ${to}${wrong}`;
      };
      setTitle(element, indexes.map(describe).join('\n'));
    }
    for (const [elementId, name] of drawing.ghostElement) {
      const element = byId(elementId);
      if (element) setTitle(element, `${name}: no node has this id`);
    }
    for (const anchor of svg.querySelectorAll<SVGGElement>('g[id^="a_wo-"]')) {
      const i = Number(anchor.id.slice('a_wo-'.length));
      anchor.dataset.child = graph.nodes[i]?.id ?? '';
    }
  }

  private applyHighlight(follow: boolean): void {
    const svg = this.svg;
    if (!svg || !this.drawing) return;
    for (const old of svg.querySelectorAll('.highlighted')) old.classList.remove('highlighted');
    if (this.highlighted === null) return;
    const elementId = this.drawing.drawnAs.get(this.highlighted);
    const element = elementId ? svg.querySelector<SVGGElement>(`[id="${elementId}"]`) : null;
    if (!element) return;
    element.classList.add('highlighted');
    if (follow) this.bringIntoView(element);
  }

  /** Pans (keeping the zoom) so that `element` is on screen, when it is not. */
  private bringIntoView(element: SVGGraphicsElement): void {
    const box = element.getBoundingClientRect();
    const view = this.canvas.getBoundingClientRect();
    const margin = 20;
    if (box.left >= view.left + margin && box.right <= view.right - margin && box.top >= view.top + margin && box.bottom <= view.bottom - margin) {
      return;
    }
    this.moved = true;
    this.transform.x += view.left + view.width / 2 - (box.left + box.width / 2);
    this.transform.y += view.top + view.height / 2 - (box.top + box.height / 2);
    this.apply();
  }

  /** The first placement: the whole graph when it fits legibly, else its top (where it starts) at a readable size. */
  private place(): void {
    const { width, height } = this.canvasSize();
    const { width: w, height: h } = this.size;
    let k = Math.min(1, width / w, height / h);
    if (k < 0.5) k = Math.min(1, Math.max(0.5, width / w));
    this.transform = { k, x: Math.max(8, (width - w * k) / 2), y: h * k <= height ? (height - h * k) / 2 : 8 };
  }

  private fit(): void {
    this.moved = true;
    const { width, height } = this.canvasSize();
    const { width: w, height: h } = this.size;
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, (width - 16) / w, (height - 16) / h));
    this.transform = { k, x: (width - w * k) / 2, y: (height - h * k) / 2 };
    this.apply();
  }

  private canvasSize(): { width: number; height: number } {
    const rect = this.canvas.getBoundingClientRect();
    return { width: Math.max(rect.width, 100), height: Math.max(rect.height, 100) };
  }

  private apply(): void {
    const { x, y, k } = this.transform;
    this.stage.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
    this.root.dataset.zoom = k.toFixed(3);
  }

  private zoom(factor: number, cx?: number, cy?: number): void {
    this.moved = true;
    const rect = this.canvas.getBoundingClientRect();
    const px = cx ?? rect.width / 2;
    const py = cy ?? rect.height / 2;
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, this.transform.k * factor));
    const ratio = k / this.transform.k;
    this.transform = { k, x: px - (px - this.transform.x) * ratio, y: py - (py - this.transform.y) * ratio };
    this.apply();
  }

  private act(action: string): void {
    switch (action) {
      case 'fit':
        this.fit();
        break;
      case 'zoom-in':
        this.zoom(1.25);
        break;
      case 'zoom-out':
        this.zoom(0.8);
        break;
      case 'collapse-all':
        if (this.graph) for (const loop of defaultCollapsedAll(this.graph)) this.collapsed.add(loop);
        this.draw();
        break;
      case 'expand-all':
        this.collapsed.clear();
        this.draw();
        break;
      case 'export-svg':
        if (this.svg) this.host.save('svg', this.exportSvg(), this.exportName('svg'));
        break;
      case 'export-png':
        if (this.svg) void this.exportPng().then((data) => this.host.save('png', data, this.exportName('png')));
        break;
    }
  }

  private toggle(loopId: string): void {
    if (this.collapsed.has(loopId)) this.collapsed.delete(loopId);
    else this.collapsed.add(loopId);
    this.draw();
  }

  private listen(): void {
    let drag: { x: number; y: number; moved: boolean; id: number } | null = null;
    let dragged = false;
    this.canvas.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      drag = { x: event.clientX, y: event.clientY, moved: false, id: event.pointerId };
      dragged = false;
    });
    this.canvas.addEventListener('pointermove', (event) => {
      if (!drag || drag.id !== event.pointerId) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      if (!drag.moved) this.canvas.setPointerCapture(event.pointerId);
      drag.moved = true;
      this.moved = true;
      this.canvas.classList.add('wf-panning');
      this.transform.x += dx;
      this.transform.y += dy;
      drag.x = event.clientX;
      drag.y = event.clientY;
      this.apply();
    });
    const end = (event: PointerEvent) => {
      if (!drag || drag.id !== event.pointerId) return;
      dragged = drag.moved;
      drag = null;
      this.canvas.classList.remove('wf-panning');
    };
    this.canvas.addEventListener('pointerup', end);
    this.canvas.addEventListener('pointercancel', end);
    this.canvas.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        const rect = this.canvas.getBoundingClientRect();
        const factor = Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015));
        this.zoom(factor, event.clientX - rect.left, event.clientY - rect.top);
      },
      { passive: false },
    );
    this.canvas.addEventListener('click', (event) => {
      if (dragged) {
        dragged = false;
        return;
      }
      this.click(event);
    });
  }

  private click(event: MouseEvent): void {
    const target = event.target as Element;
    const graph = this.graph;
    if (!graph) return;
    const child = target.closest<SVGGElement>('g[data-child]');
    if (child?.dataset.child) {
      event.preventDefault();
      this.host.openChild(child.dataset.child);
      return;
    }
    const node = target.closest<SVGGElement>('g.node');
    if (node) {
      event.preventDefault();
      if (node.dataset.node !== undefined) this.host.reveal(node.dataset.node);
      else if (node.dataset.loop !== undefined) this.toggle(node.dataset.loop);
      return;
    }
    const cluster = target.closest<SVGGElement>('g.cluster');
    if (cluster?.dataset.loop !== undefined && target.tagName.toLowerCase() === 'text') {
      this.toggle(cluster.dataset.loop);
    }
  }

  private exportName(extension: string): string {
    const name = (this.graph?.workflow ?? 'workflow').replace(/[^A-Za-z0-9._-]+/g, '_');
    return `${name}.graph.${extension}`;
  }

  /** The drawn SVG as a file: the styles inside, the theme's colours as values. */
  exportSvg(): string {
    const svg = this.svg;
    if (!svg) return '';
    const copy = svg.cloneNode(true) as SVGSVGElement;
    copy.setAttribute('xmlns', SVG_NS);
    copy.setAttribute('xmlns:xlink', 'http://www.w3.org/1999/xlink');
    const computed = getComputedStyle(this.root);
    const values = PALETTE.map((name) => `${name}: ${computed.getPropertyValue(name).trim() || 'initial'};`).join(' ');
    const style = copy.querySelector('style');
    if (style) style.textContent = `svg.wf-svg { ${values} }\n${GRAPH_CSS}`;
    const background = document.createElementNS(SVG_NS, 'rect');
    Object.entries({ width: '100%', height: '100%', fill: computed.getPropertyValue('--wf-bg').trim() || 'white' }).forEach(
      ([k, v]) => background.setAttribute(k, v),
    );
    style?.after(background);
    for (const highlighted of copy.querySelectorAll('.highlighted')) highlighted.classList.remove('highlighted');
    return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
  }

  /** The exported SVG drawn onto a canvas at twice its size, as base64 PNG. */
  async exportPng(): Promise<string> {
    const text = this.exportSvg();
    const image = new Image();
    const loaded = new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error('the SVG could not be drawn'));
    });
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
    await loaded;
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(this.size.width * scale);
    canvas.height = Math.ceil(this.size.height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no canvas');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, this.size.width, this.size.height);
    return canvas.toDataURL('image/png').slice('data:image/png;base64,'.length);
  }
}

/** "Collapse loops": every outermost loop. */
function defaultCollapsedAll(graph: Graph): string[] {
  const ids = new Set(graph.loops.map((loop) => loop.id));
  return graph.loops.filter((loop) => loop.parent === null || !ids.has(loop.parent)).map((loop) => loop.id);
}
