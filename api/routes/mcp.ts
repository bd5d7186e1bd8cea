// /mcp: the agent API as an MCP server over Streamable HTTP (src/mcp/server.ts). Stateless: each POST
// gets a server and transport of its own and a JSON answer, so any API replica serves any call and
// nothing is kept between requests. Tool calls run the /v1 routes in process with this request's
// client address, so they are rate limited, logged and counted like the same HTTP calls.
// GET (a server-to-client stream) and DELETE (end a session) have no meaning without sessions: 405.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { createAgentMcpServer } from "../../src/mcp/server.js";
import type { AppEnv } from "../deps.js";

export const MCP_PATH = "/mcp";

const notAllowed = () =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: POST JSON-RPC messages to /mcp (stateless server)" }, id: null }), {
    status: 405,
    headers: { "Content-Type": "application/json", Allow: "POST" },
  });

/** The /mcp route of `app` (its tools call `app`'s own routes). */
export function mcpRoutes(app: OpenAPIHono<AppEnv>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.post(MCP_PATH, async (c) => {
    const forwardedFor = c.req.header("x-forwarded-for");
    const server = await createAgentMcpServer(app, { env: c.env, headers: forwardedFor ? { "X-Forwarded-For": forwardedFor } : {} });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(c.req.raw);
    } finally {
      // The JSON answer is complete once handleRequest resolves.
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
  });
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);
  return router;
}
