// Parses each Mermaid file named on the command line with Mermaid's own parser and
// prints one JSON line per file: {"file", "type"} when it parses, {"file", "error"}
// when it does not. Mermaid sanitises labels with DOMPurify, which needs a DOM: jsdom
// gives it one. tests/test_graph_tools.py copies it beside the packages of
// package.json (build/mermaid-parser), where Node finds them.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const { window } = new JSDOM("");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import("mermaid");

for (const file of process.argv.slice(2)) {
  try {
    const parsed = await mermaid.parse(readFileSync(file, "utf8"));
    console.log(JSON.stringify({ file, type: parsed.diagramType }));
  } catch (error) {
    console.log(JSON.stringify({ file, error: String(error.message ?? error) }));
  }
}
