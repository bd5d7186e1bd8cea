// The MCP server's name and instructions (its `initialize` answer), in a module of their own: the stdio
// server answers `initialize` with them before it loads the app (scripts/mcp.ts).
import { OPENAPI_PATH } from "../contract/discovery/links.js";
import { SERVICE_NAME, SUMMARY } from "../contract/discovery/preface.js";

export const MCP_SERVER_INFO = { name: SERVICE_NAME, version: "1.0.0" };

export const MCP_INSTRUCTIONS = `${SUMMARY}\n\nEvery tool is one route of the HTTP API (GET ${OPENAPI_PATH}) and answers exactly what the route answers: {data} (structuredContent, per the tool's outputSchema) on success; otherwise a tool error (isError) whose text is {error, code, details?}, arguments the tool does not take included (code INVALID_REQUEST, details.field naming the first). An unknown tool, or tools/call params that are not {name, arguments}, is a JSON-RPC error -32602. Prepare tools answer unsigned bundles and a sign link: the owner's wallet signs and sends them.`;
