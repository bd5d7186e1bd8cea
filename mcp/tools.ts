// The MCP tools of the agent API, derived from the app itself so they never drift from the HTTP routes:
// - one tool per JSON route of the served OpenAPI document (reads, planners, backtests, every prepare
//   kind...), named after its path (GET /v1/agent/vaults/{vault}/prices → `vaults_prices`, a last
//   path parameter kept: GET /v1/agent/vaults/{vault} → `vaults_vault`;
//   POST /v1/agent/prepare/vault-deposit → `prepare_vault_deposit`): the route's operationId in the
//   document, made by contract/operation-id.ts;
// - its input schema is built from the route's own zod schemas (path parameters, query and JSON body,
//   from the app's OpenAPI registry, i.e. contract/*), each field described as the document
//   describes it;
// - its description is the route's entry in the route catalog skill.md is rendered from
//   (contract/discovery/catalog.ts): summary, description, and its error codes with the catalog's words;
// - a call is the HTTP request itself, run in process through `app.request()`, so the answer (and its
//   validation, errors, rate limit, logs and metrics) is exactly the route's.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { operationsOf, type OpenApiDocument, type Operation } from "../contract/discovery/catalog.js";
import { operationIdOf } from "../contract/operation-id.js";
import { errorCatalog } from "../domain/errors.js";

const SESSION_TOKEN = "The owner's session token (POST /v1/agent/report-card/session)";

/** Routes that answer documents, not JSON data: agents read them over HTTP. */
const NOT_TOOLS = /\/(openapi\.json|skill\.md|llms\.txt|reference)$/;

export type AgentTool = {
  name: string;
  title: string;
  description: string;
  method: "GET" | "POST";
  /** The OpenAPI path, e.g. /v1/agent/vaults/{vault}. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** True when the route takes a JSON body (the arguments other than path and query fields). */
  hasBody: boolean;
  /** True when the route needs the owner's session (`sessionToken` argument). */
  needsSession: boolean;
  /** True when the route takes the owner's session (`sessionToken` argument), required or not. */
  takesSession: boolean;
  inputSchema: z.ZodObject;
  readOnly: boolean;
};

type RouteDefinition = {
  type: string;
  route: {
    method: string;
    path: string;
    security?: unknown[];
    request?: {
      params?: z.ZodObject;
      query?: z.ZodObject;
      body?: { content?: Record<string, { schema?: z.ZodType }> };
    };
  };
};

/**
 * A tool's name: its operation's operationId, made by `operationIdOf` (contract/operation-id.ts, the one home
 * of the name): `/v1/agent/vaults/{vault}/prices` → `vaults_prices`; `/v1/agent/vaults/{vault}` → `vaults_vault`.
 */
export const toolName = operationIdOf;

const isLoose = (schema: z.ZodObject) =>
  (schema as unknown as { _zod: { def: { catchall?: { _zod: { def: { type: string } } } } } })._zod.def.catchall?._zod.def.type === "unknown";

/** Every tool of `app`, given the document it serves (GET /v1/agent/openapi.json). */
export function agentToolsOf(app: OpenAPIHono<any>, doc: OpenApiDocument): AgentTool[] {
  const operations = new Map(operationsOf(doc).map((op) => [`${op.method} ${op.path}`, op]));
  const tools: AgentTool[] = [];
  const used = new Set<string>();
  for (const definition of app.openAPIRegistry.definitions as unknown as RouteDefinition[]) {
    if (definition.type !== "route") continue;
    const method = definition.route.method.toUpperCase();
    if (method !== "GET" && method !== "POST") continue;
    const path = definition.route.path;
    const op = operations.get(`${method} ${path}`);
    if (!op || !path.startsWith("/v1/") || NOT_TOOLS.test(path)) continue;

    const described = (name: string, field: z.ZodType) => {
      const text = (op.parameters.find((p) => p.name === name) ?? op.body?.fields.find((f) => f.name === name))?.description;
      return text ? field.describe(text) : field;
    };
    const params = definition.route.request?.params;
    const query = definition.route.request?.query;
    const body = definition.route.request?.body?.content?.["application/json"]?.schema as z.ZodObject | undefined;
    const shape: Record<string, z.ZodType> = {};
    for (const part of [params, query, body]) {
      for (const [name, field] of Object.entries(part?.shape ?? {})) shape[name] = described(name, field as z.ZodType);
    }
    // OpenAPI security: any requirement takes the session; an empty one ({}) among them makes it optional
    // (the public report card, which needs it only when the service sets AGENT_REPORT_CARDS_READS=owner).
    const security = definition.route.security ?? [];
    const takesSession = security.length > 0;
    const needsSession = takesSession && !security.some((s) => typeof s === "object" && s !== null && Object.keys(s).length === 0);
    if (takesSession) {
      const token = z.string().min(1);
      shape.sessionToken = needsSession
        ? token.describe(`${SESSION_TOKEN}, sent as Authorization: Bearer`)
        : token.optional().describe(
            path.includes("/prepare/")
              ? // Prepares: the session makes the filed action the owner's own (issue 30).
                `${SESSION_TOKEN}, sent as Authorization: Bearer when given: send it with every prepare, so the action is the owner's own on its report card and takes the grade whatever anyone else prepared (without it, the same call prepared by others under other agentTags leaves it credited to none)`
              : `${SESSION_TOKEN}, sent as Authorization: Bearer when given: needed when the service makes this read the owner's (401 SESSION_REQUIRED without it)`,
          );
    }
    const inputSchema = body && isLoose(body) ? z.looseObject(shape) : z.object(shape);

    // The document's operationIds are unique (contract/openapi.ts); a document without them gets the same names.
    let name = op.operationId || toolName(method, path);
    if (used.has(name)) name = `${method.toLowerCase()}_${name}`;
    used.add(name);
    tools.push({
      name,
      title: op.summary || `${method} ${path}`,
      description: describeOperation(op),
      method,
      path,
      pathParams: Object.keys(params?.shape ?? {}),
      queryParams: Object.keys(query?.shape ?? {}),
      hasBody: body !== undefined,
      needsSession,
      takesSession,
      inputSchema,
      readOnly: method === "GET" || /\/(backtest|baskets\/plan)/.test(path),
    });
  }
  return tools;
}

/** A tool's description: the route's catalog entry, as skill.md gives it. */
export function describeOperation(op: Operation): string {
  const lines = [`${op.method} ${op.path}: ${op.summary}`];
  if (op.description) lines.push("", op.description);
  if (op.path.includes("/prepare/"))
    lines.push(
      "",
      "Answers the unsigned bundle (steps, walletSendCalls) and its sign link (signUrl). Nothing is signed or sent: the owner's wallet does that. Pass the owner's report-card session (sessionToken) so the action is graded as the owner's own; `reportCard` in the answer says how it was filed.",
    );
  if (op.codes.length > 0) {
    lines.push("", "Errors:");
    for (const code of op.codes) {
      const entry = (errorCatalog as Record<string, { status: number; message: string; when: string }>)[code];
      if (entry) lines.push(`- ${entry.status} ${code}: ${entry.when}`);
    }
  }
  return lines.join("\n");
}

/** The HTTP request a tool call is: path parameters filled in, query string, JSON body, session header. */
export function toolRequest(tool: AgentTool, args: Record<string, unknown>): { url: string; init: RequestInit } {
  let path = tool.path;
  const rest: Record<string, unknown> = { ...args };
  for (const name of tool.pathParams) {
    path = path.replace(`{${name}}`, encodeURIComponent(String(rest[name] ?? "")));
    delete rest[name];
  }
  const search = new URLSearchParams();
  for (const name of tool.queryParams) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const headers: Record<string, string> = { Accept: "application/json" };
  if (tool.takesSession) {
    if (typeof rest.sessionToken === "string") headers.Authorization = `Bearer ${rest.sessionToken}`;
    delete rest.sessionToken;
  }
  const query = search.toString();
  const url = `${path}${query ? `?${query}` : ""}`;
  if (!tool.hasBody) return { url, init: { method: tool.method, headers } };
  return { url, init: { method: tool.method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(rest) } };
}
