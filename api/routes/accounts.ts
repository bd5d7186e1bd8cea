// GET /v1/agent/accounts/{owner}: every position of a wallet, read from the indexer's projections.
import { createRoute, z } from "@hono/zod-openapi";
import { accountKey, cachedAnswer } from "../../src/db/answer-cache.js";
import { DEFAULT_CLOSED_DAYS, readAccount } from "../../src/db/reads/accounts.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { stringify } from "../envelope.js";
import { Account } from "../schemas/accounts.js";
import { Address, errorResponses, okResponse } from "../schemas/common.js";
import { createRouter } from "../validation.js";

const getAccount = createRoute({
  method: "get",
  path: "/accounts/{owner}",
  tags: ["Accounts"],
  summary: "Positions of a wallet",
  description: [
    "Everything the wallet holds with the service: vault shares (per vault, valued in the vault's asset and in USD at the vault's last harvest), queued deposits and withdrawals with their queue ids and states, limit orders, grids, ladder strategies with their parts, and basket tokens.",
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

const JSON_TYPE = { "Content-Type": "application/json; charset=UTF-8" } as const;

export const accountRoutes = (deps: Pick<AppDeps, "reads" | "deployments" | "now" | "readCache">) =>
  createRouter<AppEnv>().openapi(getAccount, async (c) => {
    const { owner } = c.req.valid("param");
    const { closedDays } = c.req.valid("query");
    const cache = deps.readCache;
    // An account depends on every projection: the all-tables version. A cached answer is served as
    // read (its asOf is when it was read, at most the accounts max age ago).
    const key = accountKey(owner, closedDays);
    if (cache) {
      const found = await cachedAnswer(cache, cache.accounts, key, () => cache.version.snapshot());
      cache.count("accounts", found.result);
      if (found.value) return c.body(found.value.body, 200, JSON_TYPE) as never;
    }
    // The version is taken BEFORE the read that fills the entry.
    const version = cache?.version.snapshot();
    const body = stringify({ data: await readAccount({ reads: deps.reads, deployments: deps.deployments, owner, now: deps.now(), closedDays }) });
    if (cache && version !== undefined) cache.accounts.set(key, { body }, version);
    return c.body(body, 200, JSON_TYPE) as never;
  });
