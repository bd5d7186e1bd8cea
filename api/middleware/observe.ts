// Every answered request observed once, after the answer: its log line (request-log.ts) and its
// Prometheus figures (metrics.ts), both under the route pattern that answered (route-label.ts).
// One middleware for both, as it wraps every request: one async frame and one route lookup.
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../adapters/logger.js";
import type { HttpMetrics } from "./metrics.js";
import { logRequest } from "./request-log.js";
import { routeLabel } from "./route-label.js";

export function observeRequests(logger: Logger, metrics: HttpMetrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = performance.now() - started;
    const status = c.res.status;
    const route = routeLabel(c);
    // The activity route marks a long poll (api/routes/activity.ts): timed apart from other requests.
    metrics.record(c.req.method, route, status, ms / 1000, c.get("longPoll" as never) === true);
    // At `warn` and above only 5xx lines are written: the fields of the others are never built.
    if (status >= 500 || logger.isLevelEnabled("info")) logRequest(logger, c, route, status, ms);
  };
}
