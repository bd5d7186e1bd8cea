// GET /v1/agent/accounts/{owner}/activity: the owner's change feed, pulled with a cursor. The semantics
// (baseline, paging, retries, expiry, reorgs) are written into its declaration's description
// (contract/operations/accounts.ts), which is what the OpenAPI document, skill.md and llms.txt show.
import { activityFeed } from "../../usecases/activity/feed.js";
import { CursorNotFoundError } from "../../usecases/activity/cursors.js";
import { ApiError } from "../../domain/errors.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { JSON_HEADERS } from "../envelope.js";
import { setResponseHeader } from "../middleware/response-header.js";
import { getActivity } from "../../contract/operations/accounts.js";
import { createRouter } from "../router.js";

export const activityRoutes = (deps: Pick<AppDeps, "db" | "reads" | "now" | "logger" | "activityWaker" | "readCache">) => {
  // One feed per app (one per API process): its waker serves every waiting request of this app.
  const feed = activityFeed(deps);

  return createRouter<AppEnv>().openapi(getActivity, async (c) => {
    const { owner } = c.req.valid("param");
    const { cursor, limit, waitMs } = c.req.valid("query");
    // On Node's response (no WHATWG Headers object per answer); errors carry it too.
    setResponseHeader(c, "Cache-Control", "no-store");
    // A long poll: its latency is recorded apart (api/middleware/metrics.ts).
    const long = cursor !== undefined && waitMs > 0;
    if (long) c.set("longPoll", true);
    try {
      // Only a long poll waits, so only it needs the request's abort signal: @hono/node-server makes an
      // AbortController for every request whose signal is read (and aborts it when the request closes).
      const signal = long ? c.req.raw.signal : undefined;
      return c.body(await feed({ owner, cursor, limit, waitMs, signal }), 200, JSON_HEADERS) as never;
    } catch (error) {
      if (error instanceof CursorNotFoundError) throw new ApiError("CURSOR_NOT_FOUND");
      throw error;
    }
  });
};
