// The agent API as an MCP server (the official TypeScript SDK): every JSON route is a tool
// (./tools.ts) whose call is the route itself, run in process through `app.request()`. A tool answers
// what the route answers: `structuredContent` is the HTTP body (`{data}`, or `{error, code, details?}`
// with `isError`), and the text content is the same JSON. A prepare tool answers the unsigned bundle
// and its sign link; nothing here signs or sends.
//
// Served two ways: Streamable HTTP at /mcp on the API (api/routes/mcp.ts, stateless: a server per
// request) and stdio (`npm run mcp`, scripts/mcp.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { OpenApiDocument } from "../../api/discovery/catalog.js";
import { SERVICE_NAME, SUMMARY } from "../../api/discovery/preface.js";
import { agentToolsOf, toolRequest, type AgentTool } from "./tools.js";

export const OPENAPI_PATH = "/v1/agent/openapi.json";

/** What a tool call's inner request carries over from the outer one (the client's address, for the rate limit). */
export type ForwardedRequest = {
  /** The outer request's bindings (@hono/node-server's incoming socket), so the inner one sees the same client. */
  env?: unknown;
  headers?: Record<string, string>;
};

const toolsByApp = new WeakMap<object, Promise<AgentTool[]>>();

/** The app's tools, built once per app from the OpenAPI document it serves. */
export function agentTools(app: OpenAPIHono<any>): Promise<AgentTool[]> {
  let tools = toolsByApp.get(app);
  if (!tools) {
    tools = (async () => {
      const response = await app.request(OPENAPI_PATH);
      if (response.status !== 200) throw new Error(`${OPENAPI_PATH} answered ${response.status}`);
      return agentToolsOf(app, (await response.json()) as OpenApiDocument);
    })();
    tools.catch(() => toolsByApp.delete(app));
    toolsByApp.set(app, tools);
  }
  return tools;
}

/** An MCP server whose tools call `app`'s routes in process. */
export async function createAgentMcpServer(app: OpenAPIHono<any>, forward: ForwardedRequest = {}): Promise<McpServer> {
  const server = new McpServer(
    { name: SERVICE_NAME, version: "1.0.0" },
    {
      instructions: `${SUMMARY}\n\nEvery tool is one route of the HTTP API (GET ${OPENAPI_PATH}) and answers exactly what the route answers: {data} on success; {error, code, details?} with isError otherwise. Prepare tools answer unsigned bundles and a sign link: the owner's wallet signs and sends them.`,
    },
  );
  for (const tool of await agentTools(app)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.method === "GET", openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        const { url, init } = toolRequest(tool, args);
        const response = await app.request(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...forward.headers } }, forward.env as never);
        const text = await response.text();
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = { error: text.slice(0, 500), code: "INTERNAL" };
        }
        const retryAfter = response.headers.get("Retry-After");
        if (retryAfter && !response.ok) body = { ...body, retryAfterSeconds: Number(retryAfter) };
        return { content: [{ type: "text" as const, text: JSON.stringify(body) }], structuredContent: body, isError: !response.ok };
      },
    );
  }
  return server;
}
