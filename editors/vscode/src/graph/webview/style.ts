// How a drawn graph looks. The rules travel inside the SVG element itself, so that
// an exported SVG or PNG looks like the view; colours come from `--wf-*` custom
// properties (set by graph-view.css from VS Code's theme, or a light and a dark
// palette in a standalone page), which an export replaces by their values.

/** The custom properties the graph's rules read. */
export const PALETTE = [
  '--wf-bg',
  '--wf-fg',
  '--wf-muted',
  '--wf-node-bg',
  '--wf-border',
  '--wf-loop-bg',
  '--wf-error',
  '--wf-warning',
  '--wf-accent',
  '--wf-taken',
  '--wf-font',
  '--wf-mono',
] as const;

export const GRAPH_CSS = `
svg.wf-svg text { font-family: var(--wf-mono); }
svg.wf-svg text { fill: var(--wf-fg); }
svg.wf-svg .node > path, svg.wf-svg .node > polygon, svg.wf-svg .node > ellipse {
  fill: var(--wf-node-bg); stroke: var(--wf-border);
}
svg.wf-svg .node { cursor: pointer; }
svg.wf-svg .edge > path { stroke: var(--wf-muted); }
svg.wf-svg .edge > polygon { fill: var(--wf-muted); stroke: var(--wf-muted); }
svg.wf-svg .edge text { fill: var(--wf-muted); }
svg.wf-svg .cluster > path, svg.wf-svg .cluster > polygon { fill: var(--wf-loop-bg); stroke: var(--wf-border); }
svg.wf-svg .cluster > text { cursor: pointer; }
svg.wf-svg .wf-collapsed > polygon, svg.wf-svg .wf-collapsed > path { fill: var(--wf-loop-bg); }
svg.wf-svg .start > path, svg.wf-svg .start > polygon { stroke-width: 2.5; }
svg.wf-svg .wf-start > ellipse { fill: var(--wf-fg); stroke: var(--wf-fg); }
svg.wf-svg .wf-start-edge > path { stroke: var(--wf-fg); }
svg.wf-svg .wf-start-edge > polygon { fill: var(--wf-fg); stroke: var(--wf-fg); }
svg.wf-svg .wf-end > ellipse { fill: var(--wf-node-bg); stroke: var(--wf-fg); }
svg.wf-svg .end-node > path, svg.wf-svg .end-node > polygon { stroke: var(--wf-fg); }
svg.wf-svg .wf-missing > path, svg.wf-svg .wf-missing > polygon { fill: none; stroke: var(--wf-error); }
svg.wf-svg .unreachable { opacity: 0.4; }
svg.wf-svg .sev-error > path, svg.wf-svg .sev-error > polygon { stroke: var(--wf-error); stroke-width: 2; }
svg.wf-svg .sev-error text:first-of-type { fill: var(--wf-error); }
svg.wf-svg .sev-warning > path, svg.wf-svg .sev-warning > polygon { stroke: var(--wf-warning); stroke-width: 2; }
svg.wf-svg .sev-warning text:first-of-type { fill: var(--wf-warning); }
svg.wf-svg .edge.invalid > path { stroke: var(--wf-error); }
svg.wf-svg .edge.invalid > polygon { fill: var(--wf-error); stroke: var(--wf-error); }
svg.wf-svg .edge.invalid text { fill: var(--wf-error); }
svg.wf-svg .edge.taken > path { stroke: var(--wf-taken); stroke-width: 2; }
svg.wf-svg .edge.taken > polygon { fill: var(--wf-taken); stroke: var(--wf-taken); }
svg.wf-svg .edge.taken text { fill: var(--wf-taken); font-weight: bold; }
svg.wf-svg .edge.idle { opacity: 0.5; }
svg.wf-svg .ran > path, svg.wf-svg .ran > polygon { stroke: var(--wf-taken); }
svg.wf-svg .not-run { opacity: 0.55; }
svg.wf-svg .highlighted > path, svg.wf-svg .highlighted > polygon, svg.wf-svg .highlighted > ellipse {
  stroke: var(--wf-accent); stroke-width: 3.5;
}
svg.wf-svg .node a { cursor: pointer; }
svg.wf-svg .node a text { fill: var(--wf-accent); text-decoration: underline; }
`;
