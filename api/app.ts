// The agent API: cross-cutting middleware once, then the route groups.
//
// Order (outermost first): request id → observe (log line and metrics) → CORS (/v1) → body limit →
// rate limit (/v1, /sign, /mcp) → no NUL (/v1) → index gate (/v1) → JSON depth (/v1, /mcp) → routes. All but `observe` pass reads on synchronously (an async
// frame around a request is paid on every request). Errors thrown anywhere become catalog answers in
// `onError`, which `observe` then logs and counts like any answer.
import { WRONG_CHAIN, CHAIN_ID } from "../domain/chain.js";
import { ApiError } from "../domain/errors.js";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext, AppDeps, AppEnv, RouteGroup } from "./deps.js";
import { serviceChainStateReader } from "../adapters/chain/service-state.js";
import { errorHandler, notFoundHandler } from "./errors.js";
import { openCors } from "./middleware/cors.js";
import { requestId } from "./middleware/request-id.js";
import { bodyLimit } from "./middleware/body-limit.js";
import { createHttpMetrics } from "./middleware/metrics.js";
import { DEFAULT_RATE_LIMIT, rateLimit } from "./middleware/rate-limit.js";
import { noNulInJson } from "./middleware/no-nul.js";
import { maxJsonDepth } from "./middleware/json-depth.js";
import { bearerOnly } from "./middleware/bearer-only.js";
import { observeRequests } from "./middleware/observe.js";
import { indexGate } from "./middleware/index-gate.js";
import { PartitionedRouter } from "./router.js";
import { queueDashboard } from "./queue-dashboard.js";
import { healthRoutes } from "./routes/health.js";
import { MCP_PATH, type McpFace, mcpRoutes } from "./routes/mcp.js";
import { signPageRoutes } from "./routes/sign-page.js";
import { agentRouteGroups, publicRouteGroups } from "./routes/index.js";
import { discoveryRoutes, rootDiscoveryRoutes, servedDocuments } from "./routes/discovery.js";
import type { OpenApiDocument } from "../contract/discovery/catalog.js";
import { completeDocument } from "../contract/openapi.js";
import { OPENAPI_PATH, QUEUE_DASHBOARD_PATH, ROOT_LLMS_PATH } from "../contract/discovery/links.js";
import { validationHook } from "./validation.js";

export type CreateAppOptions = {
  /** Route groups to mount at /v1/agent (default: api/routes/index.ts). */
  agentRoutes?: RouteGroup[];
  /** Route groups to mount at /v1 (default: api/routes/index.ts). */
  publicRoutes?: RouteGroup[];
};

export const API_DESCRIPTION =
  `Read data, backtests, planners and unsigned transaction bundles for chain ${CHAIN_ID}. The service never holds keys: ` +
  "every bundle takes effect only when the owner wallet signs it. Success answers {data}; errors answer {error, code, details?}.";

/**
 * Path partitions of the router (api/router.ts): /v1/strategy-finder/{token} sits beside literal
 * routes, which only TrieRouter takes; every other path keeps RegExpRouter.
 */
const ROUTER_PARTITIONS = ["/v1/strategy-finder/"] as const;

/** The API app, and its MCP face (the tools /mcp serves; `npm run mcp` serves the same over stdio). */
export type AgentApp = OpenAPIHono<AppEnv> & { mcp: McpFace };

export function createApp(given: AppDeps, options: CreateAppOptions = {}): AgentApp {
  // Made once per app, for every route group (state of the app, never of a module).
  const deps: AppContext = { ...given, chainState: serviceChainStateReader(given.client, given.deployments) };
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new PartitionedRouter(ROUTER_PARTITIONS) });
  const metrics = createHttpMetrics({ registry: deps.metricsRegistry, defaultMetrics: deps.defaultMetrics, extra: deps.extraMetrics });

  app.use(requestId(64));
  app.use(observeRequests(deps.logger, metrics));
  app.use("/v1/*", openCors());
  app.use(bodyLimit(deps.bodyLimitBytes));
  // One budget per client address (and per session token) over every route that does work: /v1, the
  // sign page (a database read per load) and /mcp (whose tool calls count again, as the same client).
  // Before the body checks, so a flood of bad bodies is refused without reading them.
  const limit = rateLimit({ ...deps.rateLimit, redis: deps.redis, logger: deps.logger, perSession: true });
  app.use("/v1/*", limit);
  app.use("/sign/*", limit);
  app.use(MCP_PATH, limit);
  // The root index and llms.txt are answered from memory, and count like every other route.
  app.use("/", limit);
  app.use(ROOT_LLMS_PATH, limit);
  if (deps.queueDashboard) app.use(`${QUEUE_DASHBOARD_PATH}/*`, limit); // guessed passwords count too
  app.use("/v1/*", noNulInJson());
  // While the index is not ready, its reads answer 503 UNAVAILABLE with Retry-After (never a 500).
  if (deps.index) app.use("/v1/*", indexGate(deps.index));
  app.use("/v1/*", maxJsonDepth());
  // The RPC's chain id, checked when it first answers: on another chain, no prepare is served.
  if (deps.chain) {
    const chain = deps.chain;
    app.use("/v1/agent/prepare/*", async (_c, next) => {
      if (!(await chain.servesPrepares())) throw new ApiError("UNAVAILABLE", WRONG_CHAIN);
      await next();
    });
  }
  app.use(MCP_PATH, maxJsonDepth());

  // Metrics are served on their own port (api/main.ts); here only behind METRICS_TOKEN, if set.
  if (deps.metricsToken) app.get("/metrics", bearerOnly(deps.metricsToken), metrics.handler);
  if (deps.queueDashboard) app.route(QUEUE_DASHBOARD_PATH, queueDashboard(deps.queueDashboard));
  app.route("/", healthRoutes(deps));
  app.route("/", signPageRoutes(deps));
  for (const group of options.agentRoutes ?? agentRouteGroups) app.route("/v1/agent", group(deps));
  // The served document: the generator's, with operationIds, security, answer examples and a license
  // (contract/openapi.ts), made once per origin; the discovery documents are rendered from it.
  const documentFor = servedDocuments(deps, (origin) => completeDocument(app.getOpenAPI31Document(openApiHead(deps, origin)) as OpenApiDocument));
  app.route("/v1/agent", discoveryRoutes(documentFor, deps.devnetFaucetUrl));
  app.route("/", rootDiscoveryRoutes(documentFor, deps.devnetFaucetUrl));
  for (const group of options.publicRoutes ?? publicRouteGroups) app.route("/v1", group(deps));
  // MCP over Streamable HTTP: its tools call the routes above in process (mcp/).
  const mcp = mcpRoutes(app, deps.rateLimit?.trustProxyHops ?? DEFAULT_RATE_LIMIT.trustProxyHops, limit.charge);
  app.route("/", mcp.router);

  // Serialised once per document (a few hundred KB), then answered from memory as bytes.
  const documentBytes = new WeakMap<object, Uint8Array<ArrayBuffer>>();
  app.get(OPENAPI_PATH, async (c) => {
    const doc = await documentFor(new URL(c.req.url).origin);
    let bytes = documentBytes.get(doc);
    if (!bytes) documentBytes.set(doc, (bytes = new TextEncoder().encode(JSON.stringify(doc))));
    return c.body(bytes, 200, { "Content-Type": "application/json" });
  });

  app.onError(errorHandler(deps.logger, deps.index));
  app.notFound(notFoundHandler);
  return Object.assign(app, { mcp: mcp.face });
}

/** The app's limit as the document states it. */
const rateLimitPolicy = (deps: AppDeps) => {
  const { points, duration } = { ...DEFAULT_RATE_LIMIT, ...deps.rateLimit };
  return { requests: points, windowSeconds: duration };
};

const rateLimitNote = (deps: AppDeps) => {
  const { requests, windowSeconds } = rateLimitPolicy(deps);
  return (
    `Rate limit: ${requests} requests per ${windowSeconds} s per client address on /v1, /mcp (each tool call counts too) and the sign page, ` +
    "and as many per session token when a request carries one; never per the owner a request names. " +
    "Answers carry RateLimit-Policy and RateLimit; over the limit: 429 RATE_LIMITED with Retry-After."
  );
};

/** The document's head: /v1/agent/openapi.json and the discovery documents (skill.md) share it. */
export const openApiHead = (deps: AppDeps, origin: string) => ({
  openapi: "3.1.0" as const,
  info: { title: "Agent interface", version: "1.0.0", description: `${API_DESCRIPTION} ${rateLimitNote(deps)}` },
  "x-rate-limit": {
    ...rateLimitPolicy(deps),
    by: ["client address", "session (bearer token hash)"],
    headers: ["RateLimit-Policy", "RateLimit", "Retry-After"],
  },
  servers: [{ url: deps.baseUrl ?? origin }],
});
