// `npm run mcp`: the agent API as an MCP server over stdio, for agents that start their tools as a
// local process. It answers `initialize` at once (this module loads only the SDK and the instructions),
// then builds the app as `npm run api` does (scripts/mcp-app.ts, imported after the handshake: loading
// and connecting it takes seconds, tens on a loaded machine, and MCP clients give up on a slow
// handshake). tools/list and tools/call wait for it and go to the app's own MCP server, linked in memory.
// stdout carries the protocol only: logs go to stderr. A client that goes away (stdin ends, or stdout
// breaks: EPIPE) closes what is open and exits 0.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { MCP_INSTRUCTIONS, MCP_SERVER_INFO } from "../mcp/instructions.js";

/** How long a forwarded tool call may take (a prepare waits on the workers): the outer client has its own timeout. */
const CALL_TIMEOUT_MS = 10 * 60 * 1000;

const closers: (() => Promise<unknown>)[] = [];
let closing = false;
async function shutdown(code = 0): Promise<void> {
  if (closing) return;
  closing = true;
  await Promise.race([Promise.allSettled(closers.map((close) => close())), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
  process.exit(code);
}

// A client that leaves breaks the pipes: a write to stdout (or a log line to stderr) then fails with
// EPIPE, which must end the process quietly rather than as an unhandled error.
process.stdout.on("error", () => void shutdown());
process.stderr.on("error", () => {});

const ready = import("./mcp-app.js").then(({ openMcpApp }) => openMcpApp(closers));
ready.catch((error: Error) => {
  if (closing) return;
  console.error(error.name === "StartError" ? error.message : error);
  void shutdown(1);
});

const front = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS });
front.setRequestHandler(ListToolsRequestSchema, async (request) => (await ready).listTools(request.params));
front.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
  (await ready).request({ method: "tools/call", params: request.params }, CallToolResultSchema, { signal: extra.signal, timeout: CALL_TIMEOUT_MS }),
);
closers.push(() => front.close());

const transport = new StdioServerTransport();
transport.onclose = () => void shutdown();
process.stdin.on("end", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
await front.connect(transport);
