// The MCP tools of the agent API, derived from the app itself so they never drift from the HTTP routes:
// - one tool per JSON route of the served OpenAPI document (reads, planners, backtests, every prepare
//   kind...), named after its path (GET /v1/agent/vaults/{vault}/prices → `vaults_prices`, a last
//   path parameter kept: GET /v1/agent/vaults/{vault} → `vaults_vault`;
//   POST /v1/agent/prepare/vault-deposit → `prepare_vault_deposit`): the route's operationId in the
//   document, made by contract/operation-id.ts;
// - its input schema is built from the route's own zod schemas (path parameters, query and JSON body,
//   from the app's OpenAPI registry, i.e. contract/*), each field described as the document
//   describes it;
// - its output schema is the route's 200 answer schema (contract/*, the one the document gives);
// - its description says in a few lines what the route does and what a call costs, and links the
//   route's section of skill.md (catalog summary, then the full description, fields and error codes);
// - a call is the HTTP request itself, run in process through `app.request()`, so the answer (and its
//   validation, errors, rate limit, logs and metrics) is exactly the route's.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { operationsOf, type OpenApiDocument, type Operation } from "../contract/discovery/catalog.js";
import { SKILL_PATH } from "../contract/discovery/links.js";
import { operationIdOf } from "../contract/operation-id.js";

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
  /** The route's 200 answer, `{data}` (contract/*). */
  outputSchema: z.ZodObject;
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
    responses?: Record<string, { content?: Record<string, { schema?: z.ZodType }> }>;
  };
};

/**
 * A tool's name: its operation's operationId, made by `operationIdOf` (contract/operation-id.ts, the one home
 * of the name): `/v1/agent/vaults/{vault}/prices` → `vaults_prices`; `/v1/agent/vaults/{vault}` → `vaults_vault`.
 */
export const toolName = operationIdOf;

const isLoose = (schema: z.ZodObject) =>
  (schema as unknown as { _zod: { def: { catchall?: { _zod: { def: { type: string } } } } } })._zod.def.catchall?._zod.def.type === "unknown";

/** The first sentence of a text, at most 80 characters. */
const firstSentence = (text: string) => {
  const sentence = text.split(/(?<=[.;])\s/)[0]!.replace(/[.;]$/, "");
  return sentence.length > 80 ? `${sentence.slice(0, 79)}…` : sentence;
};

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

    // A field's description: its first sentence (skill.md and the document give the rest).
    const described = (name: string, field: z.ZodType) => {
      const text = (op.parameters.find((p) => p.name === name) ?? op.body?.fields.find((f) => f.name === name))?.description;
      return text ? field.describe(firstSentence(text)) : field;
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
      // Sent as an HTTP header: printable ASCII only (anything else is refused as an argument, not thrown as a header).
      const token = z
        .string()
        .min(1)
        .regex(/^[\x21-\x7e]+$/, "must be printable ASCII: it is sent as an Authorization header");
      shape.sessionToken = needsSession
        ? token.describe(`${SESSION_TOKEN}, sent as Authorization: Bearer`)
        : token.optional().describe(
            path.includes("/prepare/")
              ? // Prepares: the session makes the filed action the owner's own (issue 30).
                `${SESSION_TOKEN}: files the action as the owner's`
              : `${SESSION_TOKEN}: needed when the service makes this read the owner's`,
          );
    }
    // A prepare body allows extra fields over HTTP (checked, never carried: a receiver that is not the owner
    // is refused 422). The tool takes none: its schema says exactly what it takes (additionalProperties:
    // false, portable where an open object's `{}` is not), and an extra argument is refused by name.
    const inputSchema = body && isLoose(body) ? z.strictObject(shape) : z.object(shape);
    const outputSchema = definition.route.responses?.["200"]?.content?.["application/json"]?.schema;
    if (!(outputSchema instanceof z.ZodObject)) throw new Error(`${method} ${path}: no JSON object answer schema for its tool`);

    // The document's operationIds are unique (contract/openapi.ts); a document without them gets the same names.
    let name = op.operationId || toolName(method, path);
    if (used.has(name)) name = `${method.toLowerCase()}_${name}`;
    used.add(name);
    tools.push({
      name,
      title: op.summary || `${method} ${path}`,
      description: describeOperation(op, (doc.servers?.[0]?.url ?? "").replace(/\/$/, "")),
      method,
      path,
      pathParams: Object.keys(params?.shape ?? {}),
      queryParams: Object.keys(query?.shape ?? {}),
      hasBody: body !== undefined,
      needsSession,
      takesSession,
      inputSchema,
      outputSchema,
      readOnly: method === "GET" || /\/(backtest|baskets\/plan)/.test(path),
    });
  }
  return tools;
}

/**
 * A tool's description, a few lines: what the route does, what a call costs, and where the rest is
 * (the route's section of skill.md: its full description, fields and error codes).
 */
export function describeOperation(op: Operation, base = ""): string {
  // A paid route's description names its price ("Past 30 days the run is paid: 0.01 USDG a day past 30 (60 days: 0.3 USDG)").
  const paid =
    op.answers.some((a) => a.status === "402") && (/Past \d+ days the run is paid: [^(]*\([^)]*\)/.exec(op.description)?.[0] ?? "Longer runs are paid");
  const price = paid ? `Free up to 30 days (a rate-limit point). ${paid}, with x402: unpaid, it answers 402 PAYMENT_REQUIRED.` : "Free (a rate-limit point).";
  const prepare = op.path.includes("/prepare/") ? " Answers an unsigned bundle and its sign link: nothing is signed or sent." : "";
  return `${op.summary}.${prepare}\n${price}\nDocs: ${base}${SKILL_PATH}`;
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
