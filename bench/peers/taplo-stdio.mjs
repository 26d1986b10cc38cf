// Runs the Taplo TOML language server of the npm package @taplo/lsp over stdio.
//
// @taplo/lsp ships the server as WebAssembly behind a JavaScript API
// (TaploLsp.initialize(environment, {onMessage}) and lsp.send(message)), with no
// executable. This wrapper adds the LSP base protocol (Content-Length framing) on
// stdin/stdout and gives the server the host functions its Environment asks for.
//
// Usage: node taplo-stdio.mjs NODE_MODULES_PARENT
//   NODE_MODULES_PARENT is the folder whose node_modules holds @taplo/lsp.
// Logs of the server go to stderr; stdout carries the protocol only.
import { existsSync, promises as fs } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const home = process.argv[2];
if (!home) {
  process.stderr.write("usage: node taplo-stdio.mjs NODE_MODULES_PARENT\n");
  process.exit(2);
}
const { TaploLsp } = createRequire(path.join(path.resolve(home), "package.json"))("@taplo/lsp");

// Hermetic: Taplo looks up its default online schema catalog at initialize. Refuse
// every fetch at once, so no run depends on (or waits for) a network; file: schemas
// are read through readFile below.
globalThis.fetch = async (resource) => {
  throw new TypeError(`taplo-stdio: no network access for ${String(resource?.url ?? resource)}`);
};

const toStderr = async (bytes) => {
  process.stderr.write(bytes);
  return bytes.length;
};

const environment = {
  now: () => new Date(),
  envVar: (name) => process.env[name],
  envVars: () => Object.entries(process.env),
  stdErrAtty: () => false,
  // The server speaks through onMessage/send, never through these streams.
  stdin: async () => new Uint8Array(),
  stdout: toStderr,
  stderr: toStderr,
  glob: () => [],
  readFile: async (file) => new Uint8Array(await fs.readFile(file)),
  writeFile: (file, bytes) => fs.writeFile(file, bytes),
  urlToFilePath: (url) => (url.startsWith("file:") ? fileURLToPath(url) : url),
  isAbsolute: (file) => path.isAbsolute(file),
  cwd: () => process.cwd(),
  findConfigFile: (from) => {
    for (const name of [".taplo.toml", "taplo.toml"]) {
      const candidate = path.join(from, name);
      if (existsSync(candidate)) return candidate;
    }
    return undefined;
  },
};

function write(message) {
  const body = Buffer.from(typeof message === "string" ? message : JSON.stringify(message), "utf8");
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

const lsp = await TaploLsp.initialize(environment, { onMessage: write });

// Base protocol reader: headers up to a blank line, then Content-Length bytes of JSON.
let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const headerEnd = buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0) return;
    const headers = buffer.subarray(0, headerEnd).toString("ascii");
    const match = /content-length:\s*(\d+)/i.exec(headers);
    if (!match) {
      process.stderr.write(`taplo-stdio: header without Content-Length: ${headers}\n`);
      process.exit(1);
    }
    const start = headerEnd + 4;
    const end = start + Number(match[1]);
    if (buffer.length < end) return;
    const message = JSON.parse(buffer.subarray(start, end).toString("utf8"));
    buffer = buffer.subarray(end);
    if (message.method === "exit") {
      process.exit(0);
    }
    lsp.send(message);
  }
});
process.stdin.on("end", () => process.exit(0));
