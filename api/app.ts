// The agent API: cross-cutting middleware once, then the route groups.
//
// Order (outermost first): request id → observe (log line and metrics) → CORS (/v1) → body limit →
// no NUL (/v1) → rate limit (/v1) → routes. All but `observe` pass reads on synchronously (an async
// frame around a request is paid on every request). Errors thrown anywhere become catalog answers in
// `onError`, which `observe` then logs and counts like any answer.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps, AppEnv, RouteGroup } from "./deps.js";
import { errorHandler, notFoundHandler } from "./errors.js";
import { openCors } from "./middleware/cors.js";
import { requestId } from "./middleware/request-id.js";
import { bodyLimit } from "./middleware/body-limit.js";
import { createHttpMetrics } from "./middleware/metrics.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { noNulInJson } from "./middleware/no-nul.js";
import { observeRequests } from "./middleware/observe.js";
import { PartitionedRouter } from "./router.js";
import { healthRoutes } from "./routes/health.js";
import { mcpRoutes } from "./routes/mcp.js";
import { signPageRoutes } from "./routes/sign-page.js";
import { agentRouteGroups, publicRouteGroups } from "./routes/index.js";
import { validationHook } from "./validation.js";

export type CreateAppOptions = {
  /** Route groups to mount at /v1/agent (default: api/routes/index.ts). */
  agentRoutes?: RouteGroup[];
  /** Route groups to mount at /v1 (default: api/routes/index.ts). */
  publicRoutes?: RouteGroup[];
};

export const API_DESCRIPTION =
  "Read data, backtests, planners and unsigned transaction bundles for chain 4663. The service never holds keys: " +
  "every bundle takes effect only when the owner wallet signs it. Success answers {data}; errors answer {error, code, details?}.";

/**
 * Path partitions of the router (api/router.ts): /v1/strategy-finder/{token} sits beside literal
 * routes, which only TrieRouter takes; every other path keeps RegExpRouter.
 */
const ROUTER_PARTITIONS = ["/v1/strategy-finder/"] as const;

export function createApp(deps: AppDeps, options: CreateAppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new PartitionedRouter(ROUTER_PARTITIONS) });
  const metrics = createHttpMetrics({ registry: deps.metricsRegistry, defaultMetrics: deps.defaultMetrics });

  app.use(requestId(64));
  app.use(observeRequests(deps.logger, metrics));
  app.use("/v1/*", openCors());
  app.use(bodyLimit(deps.bodyLimitBytes));
  app.use("/v1/*", noNulInJson());
  const limit = rateLimit({ ...deps.rateLimit, redis: deps.redis, logger: deps.logger });
  app.use("/v1/*", limit);
  // The sign page reads the database on every load: it shares the /v1 budget.
  app.use("/sign/*", limit);

  app.get("/metrics", metrics.handler);
  app.route("/", healthRoutes(deps));
  app.route("/", signPageRoutes(deps));
  for (const group of options.agentRoutes ?? agentRouteGroups) app.route("/v1/agent", group(deps));
  for (const group of options.publicRoutes ?? publicRouteGroups) app.route("/v1", group(deps));
  // MCP over Streamable HTTP: its tools call the routes above in process (src/mcp/).
  app.route("/", mcpRoutes(app));

  app.doc31("/v1/agent/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: { title: "Agent interface", version: "1.0.0", description: API_DESCRIPTION },
    servers: [{ url: deps.baseUrl ?? new URL(c.req.url).origin }],
  }));

  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler);
  return app;
}
