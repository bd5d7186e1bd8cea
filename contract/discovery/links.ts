// Where an agent finds the service's documents and its MCP face: the paths, the MCP section skill.md and
// llms.txt share, a client configuration, and the answer of `/` (a pointer to the docs). Pure.
import { SERVICE_NAME, SUMMARY } from "./preface.js";

export const OPENAPI_PATH = "/v1/agent/openapi.json";
export const SKILL_PATH = "/v1/agent/skill.md";
export const LLMS_PATH = "/v1/agent/llms.txt";
export const REFERENCE_PATH = "/v1/agent/reference";
/** The same text as LLMS_PATH, where llms.txt readers look first. */
export const ROOT_LLMS_PATH = "/llms.txt";
/** The MCP server over Streamable HTTP (api/routes/mcp.ts). */
export const MCP_PATH = "/mcp";
/** The operators' queue dashboard (api/queue-dashboard.ts), when its credentials are set. */
export const QUEUE_DASHBOARD_PATH = "/admin/queues";

/**
 * An `mcpServers` block (the configuration file of Claude Desktop, the MCP Inspector and most MCP
 * clients): the HTTP server at `${base}/mcp`, and the stdio server run from a checkout of the service.
 */
export function mcpClientConfig(base: string) {
  return {
    mcpServers: {
      [SERVICE_NAME]: { type: "streamable-http", url: `${base}${MCP_PATH}` },
      [`${SERVICE_NAME}-stdio`]: { command: "npm", args: ["--prefix", "/path/to/agent-interface", "run", "--silent", "mcp"] },
    },
  };
}

/** What the MCP face is and how a client connects, one sentence a line (skill.md and llms.txt). */
export function mcpLines(base: string): string[] {
  return [
    `Every JSON route below is also an MCP tool named by its operationId (\`vaults\`, \`accounts_activity\`, \`prepare_vault_deposit\`...), with the route's parameters as its input schema and the route's answer as its output schema; a call answers exactly what the route answers ({data} as structuredContent; an error as a tool error, isError, whose text is {error, code, details?}) and counts against the same rate limit.`,
    `Streamable HTTP: POST ${base}${MCP_PATH}, one JSON-RPC message per request (Content-Type: application/json, Accept: application/json, text/event-stream); stateless (no session id, no GET stream: GET and DELETE answer 405) and JSON answers, so any replica answers any call.`,
    `stdio: \`npm run mcp\` from a checkout of the service (same configuration as the API: DATABASE_URL, REDIS_URL, RPC_URL); stdout carries the protocol only, logs go to stderr.`,
    `Report-card tools take the owner's session as \`sessionToken\` (sent as Authorization: Bearer).`,
  ];
}

/** What the configuration block is for (a line before it). */
export const MCP_CONFIG_NOTE =
  "Client configuration, an `mcpServers` block: keep the entry your client speaks. Claude Desktop's configuration file takes the stdio entry (the URL it takes as a custom connector); the MCP Inspector (`npx @modelcontextprotocol/inspector --config mcp.json --server agent-interface`) and other clients of Streamable HTTP take the url entry.";

/** The client configuration as a fenced JSON block. */
export const mcpConfigBlock = (base: string) => ["```json", JSON.stringify(mcpClientConfig(base), null, 2), "```"];

/** The answer of GET / : what the service is and where its documents are. */
export function rootIndex(base: string, title: string) {
  return {
    name: title,
    description: SUMMARY,
    docs: {
      openapi: `${base}${OPENAPI_PATH}`,
      reference: `${base}${REFERENCE_PATH}`,
      skill: `${base}${SKILL_PATH}`,
      llms: `${base}${ROOT_LLMS_PATH}`,
    },
    mcp: { url: `${base}${MCP_PATH}`, transport: "streamable-http (POST, stateless, JSON answers)", stdio: "npm run mcp" },
    api: `${base}/v1`,
  };
}
