// The grading lag (issue 51): how long the oldest indexed call that a filing claims has waited, neither
// matched (its transaction on no report action) nor settled (a filing claiming it still matchable). A
// grading pass a minute keeps it under two minutes; a pass that hangs lets it grow while every owner's
// action stays "waiting to be signed". 0 when no such call. Read by the worker's /metrics and /ready.
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { creditedActionsOf, matchableFilingKeys, ownersCallsSince } from "../../adapters/db/grading-lag.js";
import type { Projections } from "../../adapters/db/projections.js";
import { SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import { callKeyOf } from "../../domain/grading/index.js";

export type GradingLagContext = { db: Kysely<Database>; reads: Kysely<Projections>; now: () => Date };

/** Seconds since the oldest claimed call that is neither matched nor settled was mined; 0 when none. */
export async function gradingLagSeconds(ctx: GradingLagContext): Promise<number> {
  const filings = await matchableFilingKeys(ctx.db);
  if (filings.length === 0) return 0;
  // owner:key -> when each matchable filing of it was made (ms)
  const made = new Map<string, number[]>();
  for (const f of filings) {
    const key = `${f.owner.toLowerCase()}:${f.call_key}`;
    made.set(key, [...(made.get(key) ?? []), f.created_at.getTime()]);
  }
  const owners = [...new Set(filings.map((f) => f.owner.toLowerCase()))];
  const oldestFiling = Math.min(...filings.map((f) => f.created_at.getTime()));
  const calls = await ownersCallsSince(ctx.reads, owners, Math.floor(oldestFiling / 1000));
  // Claimed as the grading pass matches: a filing made within a bundle's lifetime before the call's block.
  const claimed = calls.filter((c) =>
    (made.get(`${c.from.toLowerCase()}:${callKeyOf(c.to, c.input)}`) ?? []).some(
      (t) => t >= c.timestamp * 1000 - SIGN_REQUEST_TTL_MS && t < (c.timestamp + 1) * 1000,
    ),
  );
  if (claimed.length === 0) return 0;
  const since = new Date(Math.min(...claimed.map((c) => c.timestamp)) * 1000);
  const credited = new Set<string>();
  for (const a of await creditedActionsOf(ctx.db, [...new Set(claimed.map((c) => c.from.toLowerCase()))], since)) {
    credited.add(a.tx_hash!.toLowerCase());
    for (const t of (a.figures as { txHashes?: string[] }).txHashes ?? []) credited.add(t.toLowerCase());
  }
  const waiting = claimed.filter((c) => !credited.has(c.txHash.toLowerCase()));
  if (waiting.length === 0) return 0;
  return Math.max(0, ctx.now().getTime() / 1000 - Math.min(...waiting.map((c) => c.timestamp)));
}
