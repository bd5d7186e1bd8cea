// /mcp: the agent API as an MCP server over Streamable HTTP (mcp/server.ts). Stateless: each POST
// borrows a server from the app's MCP face (its pool) and gets a transport of its own and a JSON answer, so any API
// replica serves any call and nothing is kept between requests. The POST counts against the client's
// rate limit (app.ts), and each tool call runs a /v1 route in process as the same client (the
// address the limiter saw, passed in the inner request's bindings; none of the outer request's headers),
// so it is limited, logged and counted like the same HTTP call.
// One JSON-RPC message per POST: batches (a top-level array) were dropped by MCP 2025-06-18 and let
// one request do a hundred calls' work; they are refused before any.
// GET (a server-to-client stream) and DELETE (end a session) have no meaning without sessions: 405.
// tools/list (a 60-byte request, a ~150 KB answer) is answered from bytes serialised once, and charged
// to the client's rate limit by its size (a point per 16 KiB), so a small request cannot buy a large
// answer at the price of one point.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono, type Context } from "hono";
import { MCP_PATH } from "../../contract/discovery/links.js";
import { idOf, invalidParams } from "../../mcp/messages.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { createMcpFace, type ForwardedRequest, type McpFace } from "../../mcp/server.js";
import type { AppEnv } from "../deps.js";
import { clientIp, extraPointsFor, type ClientBindings } from "../middleware/rate-limit.js";

type Charge = (c: Context, points: number) => Promise<void>;

/** A plain `tools/list` request (no cursor or other params) whose headers the transport would accept. */
function plainToolsList(c: Context, message: unknown): message is { id: string | number } {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || m.method !== "tools/list" || !(typeof m.id === "string" || (typeof m.id === "number" && Number.isSafeInteger(m.id)))) return false;
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Object.keys(m.params).length > 0)) return false;
  const accept = c.req.header("accept") ?? "";
  const version = c.req.header("mcp-protocol-version");
  return (
    accept.includes("application/json") && accept.includes("text/event-stream") && (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}

const isToolsList = (message: unknown) => typeof message === "object" && message !== null && (message as { method?: unknown }).method === "tools/list";

export { MCP_PATH };

/** A JSON-RPC error answer (id null: it answers no particular message). */
export const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });

const notAllowed = () => jsonRpcError(405, -32000, "Method not allowed: POST JSON-RPC messages to /mcp (stateless server)", { Allow: "POST" });

export type { McpFace };

/**
 * The /mcp route of `app` (its tools call `app`'s own routes) and the app's MCP face it serves;
 * `trustProxyHops` and `charge` of the app's limiter.
 */
export function mcpRoutes(app: OpenAPIHono<AppEnv>, trustProxyHops: number, charge?: Charge): { router: Hono<AppEnv>; face: McpFace } {
  const router = new Hono<AppEnv>();
  const face = createMcpFace(app);
  const { pool } = face;
  router.post(MCP_PATH, async (c) => {
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
      return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    // The body was read (and its depth checked) by the middleware; Hono caches the text.
    let message: unknown;
    try {
      message = JSON.parse(await c.req.text());
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not JSON");
    }
    if (Array.isArray(message))
      return jsonRpcError(400, -32600, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18): send one message per POST");
    const badParams = invalidParams(message);
    if (badParams) return c.json({ jsonrpc: "2.0", error: { code: -32602, message: badParams }, id: idOf(message) });

    if (isToolsList(message)) {
      const list = await face.toolListBytes();
      await charge?.(c, extraPointsFor(list.length));
      if (plainToolsList(c, message)) {
        const body = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`), list, Buffer.from("}")]);
        return c.body(body, 200, { "Content-Type": "application/json" });
      }
    }

    const env: ClientBindings = { agentClientIp: clientIp(c, trustProxyHops) };
    const forward: ForwardedRequest = { env };
    const server = await pool.take();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(c.req.raw, {
        parsedBody: message,
        authInfo: { token: "", clientId: env.agentClientIp!, scopes: [], extra: { forward } },
      });
      // Through the context, so the headers set before the route (request id, RateLimit) are kept off Node too.
      return c.newResponse(answer.body, answer);
    } finally {
      // The JSON answer is complete once handleRequest resolves; closing the transport frees the server.
      await transport.close().catch(() => {});
      pool.give(server);
    }
  });
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);
  return { router, face };
}
