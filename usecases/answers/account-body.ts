// The account answer as its JSON body, through the read cache: serialized once with `asOf` and
// `closedSince` left open (a cached answer is re-stamped per request), and the cache's protocol around
// the read of usecases/answers/accounts.ts.
import type { Kysely } from "kysely";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { isoTime } from "../../domain/format.js";
import { answerBody } from "../answer-body.js";
import { accountKey, cachedAnswer, type AccountEntry, type ReadCache } from "../read-cache.js";
import { accountAnswer, answerTime, type Account } from "./accounts.js";
import { DAY_S } from "../../domain/price.js";

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
export function accountEntry(account: Account, listedUntilMs: number, valuedUntilMs: number): AccountEntry {
  const json = answerBody({ ...account, asOf: AS_OF_MARK, closedSince: CLOSED_SINCE_MARK });
  // Each split keeps the mark's quotes on both sides of where the value goes.
  const asOf = json.indexOf(AS_OF_JSON);
  const closedSince = json.indexOf(CLOSED_SINCE_JSON);
  return {
    head: json.slice(0, asOf + 1),
    mid: json.slice(asOf + AS_OF_JSON.length - 1, closedSince + 1),
    tail: json.slice(closedSince + CLOSED_SINCE_JSON.length - 1),
    listedUntilMs,
    valuedUntilMs,
  };
}

/** The body of `entry` as read at `now`: the same `asOf` and `closedSince` a read at `now` gives. */
export function accountBody(entry: AccountEntry, now: Date, closedDays: number): string {
  const cutoff = Math.floor(now.getTime() / 1000) - closedDays * DAY_S;
  return entry.head + answerTime(now, entry.valuedUntilMs) + entry.mid + isoTime(cutoff) + entry.tail;
}

export type AccountBodyDeps = {
  reads: Kysely<Projections>;
  deployments: Deployments;
  now: () => Date;
  /** Absent: every read goes to the database. */
  readCache?: ReadCache;
};

/** The account's answer body `{data}`: from the read cache while an answer there still holds, else read now (and kept). */
export async function accountAnswerBody(deps: AccountBodyDeps, owner: string, closedDays: number): Promise<string> {
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
    if (hit) return accountBody(hit, now, closedDays);
  }
  // The version is taken BEFORE the read that fills the entry.
  const before = version();
  const now = deps.now();
  const { account, listedUntilMs, valuedUntilMs } = await accountAnswer({ reads: deps.reads, deployments: deps.deployments, owner, now, closedDays });
  const entry = accountEntry(account, listedUntilMs, valuedUntilMs);
  if (cache && before !== undefined) cache.accounts.set(key, entry, before);
  return accountBody(entry, now, closedDays);
}
