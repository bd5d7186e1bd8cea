// GET /v1/agent/accounts/{owner}/activity: the owner's change feed, pulled with a cursor.
// The semantics (baseline, paging, retries, expiry, reorgs) are written into the route's
// description below, which is what the OpenAPI document, skill.md and llms.txt show.
import { createRoute, z } from "@hono/zod-openapi";
import { activityFeed } from "../../usecases/activity/feed.js";
import { CURSOR_TTL_MS } from "../../adapters/db/cursors.js";
import { CursorNotFoundError, MAX_CHANGES_PER_CALL } from "../../usecases/activity/cursors.js";
import { ApiError } from "../../domain/errors.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { JSON_HEADERS } from "../envelope.js";
import { setResponseHeader } from "../middleware/response-header.js";
import { Activity } from "../../contract/accounts.js";
import { Address, errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../router.js";
import { DAY_MS } from "../../domain/price.js";

const TTL_DAYS = CURSOR_TTL_MS / DAY_MS;

/** The longest a long poll waits (`waitMs`). */
export const MAX_WAIT_MS = 30_000;

export const ACTIVITY_DESCRIPTION = [
  "The wallet's change feed, pull only. Each change is `{id, kind, subject, contract, data, txHash, block, blockHash, logIndex, time}`; `data` holds the change's figures (amounts in base units as decimal strings).",
  "**Baseline.** Call without `cursor`: the answer has no changes (read the current state from GET /v1/agent/accounts/{owner}) and a cursor at the wallet's newest change.",
  `**Polling.** Call with the cursor last returned: the answer has the wallet's changes after it, in order of \`id\`, at most ${MAX_CHANGES_PER_CALL} (or \`limit\`), and a new cursor just after the last change returned. While \`more\` is true, call again at once with the new cursor; when it is false you are up to date (poll again later, e.g. every few seconds).`,
  "**Nothing new.** A poll that finds no change (and no reorg) answers the very cursor you passed, so keep polling with it. Once that cursor is more than a day old, such a poll answers a new cursor instead (issued now): use it from then on, and a cursor you keep polling with never expires.",
  "**Retries are safe.** Every answer carries a cursor, and the cursor passed in stays valid: calling again with the same cursor answers the same changes (and the same new cursor, unless more changes arrived meanwhile). Change ids are stable positions, so de-duplicate by `id`.",
  `**Expiry.** A cursor is valid for ${TTL_DAYS} days after it was issued. An unknown cursor, another wallet's cursor, or one older than ${TTL_DAYS} days answers 404 CURSOR_NOT_FOUND: take a new baseline (and re-read the account). A \`cursor\` that is empty or longer than 128 characters is 400 INVALID_REQUEST; any other string that is not a live cursor of this wallet is 404 CURSOR_NOT_FOUND.`,
  "**Reorgs.** A cursor remembers the blocks of the changes it covers. If a chain reorganisation removed changes you were already given, the answer has `reorged: true` and starts from the last common point: `after` is at or before it (before it while the indexer is still re-processing blocks; what you then drop and get again is identical). Drop every change you hold with an id greater than `after` (and anything you derived from them), then apply `changes` (the replacement branch's changes, in order; more may follow on the next polls). A replacement change can have the same id as a removed one, so apply the rule before de-duplicating by id. Otherwise `reorged` is false and `after` is the position of the cursor you passed.",
  `**Long poll.** With a cursor and \`waitMs\` (0-${MAX_WAIT_MS} ms, default 0: answer at once), a poll that finds no change waits until one of the wallet's changes is indexed, then answers it at once (typically well under a second after its block), or answers no changes when \`waitMs\` has passed. Either answer carries a cursor, as any poll. A baseline (no cursor) never waits. Waiting requests hold no database connection, so agents may keep one waiting per wallet instead of polling every few seconds.`,
  "`since` is when the cursor you passed was issued (for a baseline: now); `now` is the server time.",
].join("\n\n");

const getActivity = createRoute({
  method: "get",
  path: "/accounts/{owner}/activity",
  tags: ["Accounts"],
  summary: "Changes of a wallet since a cursor",
  description: ACTIVITY_DESCRIPTION,
  request: {
    params: z.object({ owner: Address.openapi({ description: "The wallet (0x followed by 40 hex characters)" }) }),
    query: z.object({
      cursor: z
        .string()
        .min(1)
        .max(128)
        .optional()
        .openapi({ description: "The cursor last returned; omit it for a baseline", example: "gU2p3m0oQ0y8W1R3aT1n4g5x7Jc9kLmN" }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(MAX_CHANGES_PER_CALL)
        .default(MAX_CHANGES_PER_CALL)
        .openapi({ description: `Most changes in one answer (1-${MAX_CHANGES_PER_CALL}, default ${MAX_CHANGES_PER_CALL})`, example: MAX_CHANGES_PER_CALL }),
      waitMs: z.coerce
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .default(0)
        .openapi({
          description: `Long poll: with a cursor and no new change, wait up to this many milliseconds (0-${MAX_WAIT_MS}, default 0 = answer at once) for one; ignored without a cursor`,
          example: 25_000,
        }),
    }),
  },
  responses: {
    200: okResponse(Activity, "The wallet's changes after the cursor and a new cursor"),
    ...errorResponses("CURSOR_NOT_FOUND"),
  },
});

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
