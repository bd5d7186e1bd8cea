// The `purge` queue's processor: retention. Deletes, in bounded batches, what has outlived its use:
// expired sign-in challenges and sessions, sign requests a day past expiry, activity cursors past their
// 14 days, filings never matched to a mined call after 30 days, and strategy-finder run logs after 90
// days. Graded actions are the report card's record: a filing with a matched transaction is never
// purged. A repeatable job (a BullMQ job scheduler, every 10 minutes); every clock decision reads `now`.
import type { Job, Queue } from "bullmq";
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { sweepExpiredCursors } from "../../adapters/db/cursors.js";
import {
  deleteExpiredChallenges,
  deleteExpiredSessions,
  deleteSignRequestsExpiredBy,
  deleteStrategyRunsBy,
  deleteUnmatchedFilingsBy,
} from "../../adapters/db/purge.js";
import type { Logger } from "../../adapters/logger.js";
import { DAY_MS } from "../../domain/price.js";

export const PURGE_EVERY_MS = 10 * 60_000;

/** How long each kind of row is kept (docs/security.md, "Retention"). */
export const RETENTION = {
  /** After expiry: an expired sign request answers 404 like an unknown one; a day leaves room to look into one. */
  signRequestAfterExpiryMs: DAY_MS,
  /** After creation, for filings never matched: their 10-minute match window is long gone and the indexer long caught up. */
  unmatchedFilingMs: 30 * DAY_MS,
  /** After creation: GET /v1/strategy-finder/attempts counts the runs of this window. */
  strategyRunMs: 90 * DAY_MS,
} as const;

/** Rows per DELETE (short transactions, short locks) and DELETEs per table per run (a bounded run; the next run goes on). */
export const PURGE_BATCH = 1000;
export const PURGE_MAX_BATCHES = 20;

export type PurgeContext = { db: Kysely<Database>; now: () => Date; batch?: number; maxBatches?: number };
export type PurgeSummary = Record<"challenges" | "sessions" | "signRequests" | "cursors" | "filings" | "strategyRuns", number>;

/** One pass: each table's expired rows, a batch at a time, until none is left or the run's bound is reached. */
export async function purgeExpired(ctx: PurgeContext): Promise<PurgeSummary> {
  const now = ctx.now();
  const batch = ctx.batch ?? PURGE_BATCH;
  const drain = async (deleteBatch: () => Promise<number>): Promise<number> => {
    let total = 0;
    for (let i = 0; i < (ctx.maxBatches ?? PURGE_MAX_BATCHES); i++) {
      const n = await deleteBatch();
      total += n;
      if (n < batch) break;
    }
    return total;
  };
  const { db } = ctx;

  const challenges = await drain(() => deleteExpiredChallenges(db, now, batch));
  const sessions = await drain(() => deleteExpiredSessions(db, now, batch));
  // Filings keep their row: the foreign key sets their sign_request_id to null.
  const signCutoff = new Date(now.getTime() - RETENTION.signRequestAfterExpiryMs);
  const signRequests = await drain(() => deleteSignRequestsExpiredBy(db, signCutoff, batch));
  const cursors = await drain(() => sweepExpiredCursors(db, now, batch));
  // Never-matched filings only (no transaction on their report_action); their report_action row goes with them (cascade).
  const filingCutoff = new Date(now.getTime() - RETENTION.unmatchedFilingMs);
  const filings = await drain(() => deleteUnmatchedFilingsBy(db, filingCutoff, batch));
  const runCutoff = new Date(now.getTime() - RETENTION.strategyRunMs);
  const strategyRuns = await drain(() => deleteStrategyRunsBy(db, runCutoff, batch));
  return { challenges, sessions, signRequests, cursors, filings, strategyRuns };
}

export function purgeProcessor(ctx: PurgeContext & { logger: Logger }) {
  return async (_job: Job): Promise<PurgeSummary> => {
    const summary = await purgeExpired(ctx);
    if (Object.values(summary).some((n) => n > 0)) ctx.logger.info({ ...summary }, "expired rows purged");
    return summary;
  };
}

/** Idempotent: every worker process may call it at start. */
export async function schedulePurge(queue: Queue, everyMs = PURGE_EVERY_MS): Promise<void> {
  await queue.upsertJobScheduler("purge", { every: everyMs }, { name: "purge", data: {}, opts: { removeOnComplete: 20, removeOnFail: 50 } });
}
