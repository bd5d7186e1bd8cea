// The agent API as an MCP server (the official TypeScript SDK): every JSON route is a tool
// (./tools.ts) whose call is the route itself, run in process through `app.request()`. A tool answers
// what the route answers: on success `structuredContent` is the HTTP body (`{data}`, valid against the
// tool's outputSchema, the route's answer schema) and the text content is the same JSON; an error is
// a tool error (`isError`) whose text content is the route's `{error, code, details?}` (no
// structuredContent: it would not match the outputSchema, and the SDK's client, 1.32.2, validates it
// even on errors). A prepare tool answers the unsigned bundle and its sign link; nothing here signs or sends.
//
// Served two ways: Streamable HTTP at /mcp on the API (api/routes/mcp.ts: stateless, each POST borrows
// a server from the face's pool) and stdio (`npm run mcp`, scripts/mcp.ts). One face per app, made where
// the app is (`createMcpFace`): the tools are registered once per server and the tools/list answer
// (under 64 KB: short descriptions linking skill.md, and portable schemas, ./schema.ts) is built once
// per face: a POST builds neither.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { OpenApiDocument } from "../contract/discovery/catalog.js";
import { OPENAPI_PATH } from "../contract/discovery/links.js";
import { MCP_INSTRUCTIONS, MCP_SERVER_INFO } from "./instructions.js";
import { portableSchema } from "./schema.js";
import { agentToolsOf, toolRequest, type AgentTool } from "./tools.js";

export { OPENAPI_PATH };

/**
 * What a tool call's inner request carries over from the outer one: the bindings of `app.request`
 * (e.g. `{agentClientIp}`, the client the rate limiter counts it against). Nothing of the outer
 * request's headers, and no Node response to write them to.
 */
export type ForwardedRequest = { env?: Record<string, unknown> };

/** How a tool call finds its request's forwarding: the transport's authInfo.extra.forward (set per POST). */
type CallExtra = { authInfo?: { extra?: { forward?: ForwardedRequest } } };

/** The app's tools, built from the OpenAPI document it serves. */
async function agentToolsOfApp(app: OpenAPIHono<any>): Promise<AgentTool[]> {
  const response = await app.request(OPENAPI_PATH);
  if (response.status !== 200) throw new Error(`${OPENAPI_PATH} answered ${response.status}`);
  return agentToolsOf(app, (await response.json()) as OpenApiDocument);
}

/** A promise made on first use and kept; a failed one is made again on the next. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (!kept) {
      kept = make();
      kept.catch(() => (kept = undefined));
    }
    return kept;
  };
}

/** Idle servers a pool keeps (more are built under concurrency, then dropped). */
const MAX_IDLE = 16;

export type McpServerPool = { take(): Promise<McpServer>; give(server: McpServer): void };

/** The MCP face of one app: its tools and tools/list, each built once, its servers, and what it built (tests read it). */
export type McpFace = {
  app: OpenAPIHono<any>;
  tools(): Promise<AgentTool[]>;
  toolList(): Promise<ListToolsResult>;
  /** The tools/list result as JSON bytes, serialised once: /mcp answers it from memory. */
  toolListBytes(): Promise<Buffer>;
  /** A server whose tools call the app; a call's inner request gets its transport's forwarding, else `forward`. */
  server(forward?: ForwardedRequest): Promise<McpServer>;
  /** Servers for stateless requests: one connects to one request's transport at a time, then returns. */
  pool: McpServerPool;
  builds: { servers: number; toolLists: number };
};

export function createMcpFace(app: OpenAPIHono<any>): McpFace {
  const idle: McpServer[] = [];
  const face: McpFace = {
    app,
    tools: once(() => agentToolsOfApp(app)),
    toolList: once(() => buildToolList(face)),
    toolListBytes: once(async () => Buffer.from(JSON.stringify(await face.toolList()))),
    async server(forward = {}) {
      const [server, list] = await Promise.all([sdkServer(face, forward), face.toolList()]);
      server.server.setRequestHandler(ListToolsRequestSchema, () => list);
      return server;
    },
    pool: {
      take: async () => idle.pop() ?? face.server(),
      give: (server) => {
        if (idle.length < MAX_IDLE) idle.push(server);
      },
    },
    builds: { servers: 0, toolLists: 0 },
  };
  return face;
}

/** The server with the tools registered, answering tools/list as the SDK does. */
async function sdkServer(face: McpFace, forward: ForwardedRequest): Promise<McpServer> {
  const { app } = face;
  face.builds.servers++;
  const server = new McpServer(MCP_SERVER_INFO, { instructions: MCP_INSTRUCTIONS });
  const tools = await face.tools();
  const run = async (tool: AgentTool, args: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
    const { url, init } = toolRequest(tool, args);
    const env = (extra.authInfo?.extra?.forward ?? forward).env;
    const response = await app.request(url, init, env as never);
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { error: text.slice(0, 500), code: "INTERNAL" };
    }
    const retryAfter = response.headers.get("Retry-After");
    if (retryAfter && !response.ok) body = { ...body, retryAfterSeconds: Number(retryAfter) };
    const content = [{ type: "text" as const, text: JSON.stringify(body) }];
    return response.ok ? { content, structuredContent: body } : { content, isError: true };
  };
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        // No title: the description's first line is the route's summary (and tools/list stays under 64 KB).
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        // The hints that differ from the defaults (readOnly false, destructive true, idempotent false, openWorld true).
        annotations: {
          ...(tool.readOnly ? { readOnlyHint: true } : { destructiveHint: false }),
          ...(tool.method === "GET" && { idempotentHint: true }),
          openWorldHint: false,
        },
      },
      (args: Record<string, unknown>, extra: CallExtra) => run(tool, args, extra),
    );
  }
  // tools/call in one voice (MCP 2025-11-25, "Tool Execution Errors"): arguments the tool does not take
  // (an extra one, a wrong type, a bad value) are a tool error whose text is {error, code: INVALID_REQUEST,
  // details: {field, issues}}, as the HTTP route words it, so the model can correct them; the SDK's own
  // check would answer the text "MCP error -32602 ...". An unknown tool stays a JSON-RPC -32602.
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const args = request.params.arguments ?? {};
    const typeProblem = await toolArgumentsProblem(face, tool.name, args);
    if (typeProblem) return invalidArguments([typeProblem]);
    const parsed = await tool.inputSchema.safeParseAsync(args);
    if (!parsed.success) return invalidArguments(describeIssues(parsed.error.issues));
    // A fault past validation is the tool's error, as the SDK's own handler made it, not a JSON-RPC internal error.
    return run(tool, parsed.data as Record<string, unknown>, extra as CallExtra).catch((error: Error): CallToolResult => {
      const body = { error: `the tool failed: ${error.message.slice(0, 200)}`, code: "INTERNAL" };
      return { content: [{ type: "text", text: JSON.stringify(body) }], isError: true };
    });
  });
  return server;
}

type ArgumentIssue = { field: string; message: string };

/** zod's issues as {field, message}: a key the tool does not take is named itself. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): ArgumentIssue[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ field: [...issue.path, key].join("."), message: "is not allowed (the tool takes only its documented arguments)" }))
      : [{ field: issue.path.join(".") || "arguments", message: issue.message }],
  );
}

/** The tool error of arguments the tool does not take: the route's INVALID_REQUEST body. */
function invalidArguments(issues: ArgumentIssue[]): CallToolResult {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  const body = { error: `Invalid arguments: ${first!.field}: ${first!.message}${more}`, code: "INVALID_REQUEST", details: { field: first!.field, issues } };
  return { content: [{ type: "text", text: JSON.stringify(body) }], isError: true };
}

/** The tools/list answer of the face, asked of a server of its own over an in-memory pair, its schemas made portable. */
async function buildToolList(face: McpFace): Promise<ListToolsResult> {
  face.builds.toolLists++;
  const server = await sdkServer(face, {});
  const [near, far] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "tool-list", version: "1.0.0" });
  try {
    await Promise.all([server.connect(far), client.connect(near)]);
    const { tools } = await client.listTools();
    // `execution` is left out: its taskSupport "forbidden" is the default.
    return {
      tools: tools.map(({ execution: _default, ...tool }) => ({
        ...tool,
        inputSchema: portableSchema(tool.inputSchema, false),
        ...(tool.outputSchema && { outputSchema: portableSchema(tool.outputSchema, true) }),
      })),
    };
  } finally {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
  }
}

type JsonProperty = { type?: unknown };

/**
 * Why a tools/call's arguments break the primitive types its tool advertises, or undefined. The SDK
 * validates with the routes' own schemas, whose query parameters coerce strings (as HTTP sends them):
 * it would read `limit: true` as 1, and `closedDays: "1."` as 1. A boolean, object or array is never an
 * integer, number or string, and a string is never an integer or a number.
 */
async function toolArgumentsProblem(face: McpFace, name: string, args: Record<string, unknown>): Promise<ArgumentIssue | undefined> {
  const tool = (await face.toolList()).tools.find((t) => t.name === name);
  const properties = (tool?.inputSchema.properties ?? {}) as Record<string, JsonProperty>;
  for (const [key, value] of Object.entries(args)) {
    const type = properties[key]?.type;
    if (type !== "integer" && type !== "number" && type !== "string") continue;
    // A number given as a string ("1.", "+1") would pass the route's query coercion: the tool says integer.
    const numberAsString = type !== "string" && typeof value === "string";
    if (numberAsString || typeof value === "boolean" || (typeof value === "object" && value !== null))
      return { field: key, message: `must be ${type === "string" ? "a string" : `a ${type}`}` };
  }
  return undefined;
}
