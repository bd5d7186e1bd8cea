// GET /v1/agent/accounts/{owner} and /accounts/{owner}/activity, declared: path, method, input and answer
// schemas, description. The API's routes (api/routes/accounts.ts, activity.ts) serve them, the OpenAPI
// document and the MCP tools come from them, and the typed client (client/agent-client.ts) infers its answers.
import { createRoute, z } from "@hono/zod-openapi";
import { Account, Activity, CURSOR_TTL_MS, DEFAULT_CLOSED_DAYS, MAX_CHANGES_PER_CALL, MAX_WAIT_MS } from "../accounts.js";
import { Address, errorResponses, okResponse } from "../fields.js";
import { DAY_MS } from "../../domain/price.js";

export const getAccount = createRoute({
  method: "get",
  path: "/accounts/{owner}",
  tags: ["Accounts"],
  summary: "Positions of a wallet",
  description: [
    "Everything the wallet holds with the service: vault shares (per vault, valued in the vault's asset and in USD as the vault converts them now, at the token's latest price), queued deposits and withdrawals with their queue ids and states, limit orders, grids, ladder strategies with their parts, and basket tokens.",
    `Open items are always listed; items that ended (settled, refunded, cancelled or completed queue entries; closed orders, grids and ladder strategies) only from the last \`closedDays\` days (default ${DEFAULT_CLOSED_DAYS}), newest first, at most 200 of each kind.`,
    "An owner with nothing answers 200 with empty lists. Amounts come in pairs: `x` in whole units of its token and `xUnits` in base units. Addresses are checksummed, times ISO 8601 UTC.",
    "To follow changes from here, take an activity baseline (GET /v1/agent/accounts/{owner}/activity) and poll it.",
  ].join("\n\n"),
  request: {
    params: z.object({ owner: Address.openapi({ description: "The wallet (0x followed by 40 hex characters)" }) }),
    query: z.object({
      closedDays: z.coerce
        .number()
        .int()
        .min(0)
        .max(30)
        .default(DEFAULT_CLOSED_DAYS)
        .openapi({ description: `Days of ended items to list (0-30, default ${DEFAULT_CLOSED_DAYS}); 0 lists open items only`, example: DEFAULT_CLOSED_DAYS }),
    }),
  },
  responses: {
    200: okResponse(Account, "The wallet's positions"),
    ...errorResponses(),
  },
});

const TTL_DAYS = CURSOR_TTL_MS / DAY_MS;

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

export const getActivity = createRoute({
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
