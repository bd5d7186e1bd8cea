// The route pattern that answered a request (`/v1/agent/vaults/:vault`), or "unmatched": a label
// of bounded cardinality for logs and metrics, which never carries the path's values.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let index = routes.length - 1; index >= 0; index--) {
    const route = routes[index]!;
    // Middleware (`use`) is registered for method ALL; a route's handler for its own method.
    if (route.method !== "ALL") return route.path;
  }
  return "unmatched";
}
