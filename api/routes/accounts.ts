// GET /v1/agent/accounts/{owner}: every position of a wallet, read from the indexer's projections.
import { createRoute, z } from "@hono/zod-openapi";
import { accountKey, cachedAnswer, type AccountEntry } from "../../usecases/read-cache.js";
import { DEFAULT_CLOSED_DAYS, readAccountAnswer, type Account as AccountAnswer } from "../../adapters/db/reads/accounts.js";
import { isoTime } from "../../domain/format.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { JSON_HEADERS, stringify } from "../envelope.js";
import { Account } from "../../contract/accounts.js";
import { Address, errorResponses, okResponse } from "../../contract/fields.js";
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

/** The shared tables an account reads beside the owner's own rows (vault figures, prices, markets, baskets). */
export const ACCOUNT_SHARED_TABLES = ["vault", "vault_snapshot", "market", "token", "basket"] as const;
/** How long an account read waits for the owners of a just-indexed block to be known before reading the database. */
const OWNERS_WAIT_MS = 250;
/** Stand for `asOf` and `closedSince` while an answer is serialized; the body is split around them. */
const AS_OF_MARK = "\u0001asOf\u0001";
const CLOSED_SINCE_MARK = "\u0001closedSince\u0001";
/** The marks as they appear in the JSON (quoted). */
const AS_OF_JSON = JSON.stringify(AS_OF_MARK);
const CLOSED_SINCE_JSON = JSON.stringify(CLOSED_SINCE_MARK);

/** An account answer as its JSON body split around `asOf` and `closedSince` (both re-stamped when served). */
export function accountEntry(account: AccountAnswer, listedUntilMs: number): AccountEntry {
  const json = stringify({ data: { ...account, asOf: AS_OF_MARK, closedSince: CLOSED_SINCE_MARK } });
  // Each split keeps the mark's quotes on both sides of where the value goes.
  const asOf = json.indexOf(AS_OF_JSON);
  const closedSince = json.indexOf(CLOSED_SINCE_JSON);
  return {
    head: json.slice(0, asOf + 1),
    mid: json.slice(asOf + AS_OF_JSON.length - 1, closedSince + 1),
    tail: json.slice(closedSince + CLOSED_SINCE_JSON.length - 1),
    listedUntilMs,
  };
}

/** The body of `entry` as read at `now`: the same `asOf` and `closedSince` a read at `now` gives. */
export function accountBody(entry: AccountEntry, now: Date, closedDays: number): string {
  const cutoff = Math.floor(now.getTime() / 1000) - closedDays * 86400;
  return entry.head + now.toISOString() + entry.mid + isoTime(cutoff) + entry.tail;
}

export const accountRoutes = (deps: Pick<AppDeps, "reads" | "deployments" | "now" | "readCache">) =>
  createRouter<AppEnv>().openapi(getAccount, async (c) => {
    const { owner } = c.req.valid("param");
    const { closedDays } = c.req.valid("query");
    const cache = deps.readCache;
    const version = () => cache?.version.ownerSnapshot?.(owner.toLowerCase(), ACCOUNT_SHARED_TABLES);
    // An account depends on the owner's rows (tracked per owner) and on the shared tables. A cached
    // answer is exactly what a read now would give: every write it depends on bumps its version,
    // and time only drops ended items, which listedUntilMs covers.
    const key = accountKey(owner, closedDays);
    if (cache) {
      const found = await cachedAnswer(cache, cache.accounts, key, version, OWNERS_WAIT_MS);
      const now = deps.now();
      const hit = found.value && now.getTime() < found.value.listedUntilMs ? found.value : undefined;
      cache.count("accounts", hit ? "hit" : found.result === "hit" ? "miss" : found.result);
      if (hit) return c.body(accountBody(hit, now, closedDays), 200, JSON_HEADERS) as never;
    }
    // The version is taken BEFORE the read that fills the entry.
    const before = version();
    const now = deps.now();
    const { account, listedUntilMs } = await readAccountAnswer({ reads: deps.reads, deployments: deps.deployments, owner, now, closedDays });
    const entry = accountEntry(account, listedUntilMs);
    if (cache && before !== undefined) cache.accounts.set(key, entry, before);
    return c.body(accountBody(entry, now, closedDays), 200, JSON_HEADERS) as never;
  });
