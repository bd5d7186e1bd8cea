// The grading lag (issue 51): how long the oldest indexed service call the last whole grading pass did not
// cover has waited to be matched or left; 0 when none. A pass a minute keeps it under about two minutes; a
// pass that hangs lets it grow while every owner's action stays "waiting to be signed". Two index reads,
// whatever the number of filings or calls: the worker's /metrics and /ready read it every few seconds.
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { readGradingPass } from "../../adapters/db/grading.js";
import type { Projections } from "../../adapters/db/projections.js";
import { oldestCallAfter } from "../../adapters/db/reads/grading.js";

export type GradingLagContext = { db: Kysely<Database>; reads: Kysely<Projections>; now: () => Date };

/**
 * Seconds since the oldest call after the last pass's cover has waited: since its block or since that pass
 * started, whichever is later (a call mined before the pass began yet not covered was indexed after it began).
 * Before the first pass, since its block.
 */
export async function gradingLagSeconds(ctx: GradingLagContext): Promise<number> {
  const pass = await readGradingPass(ctx.db);
  const oldest = await oldestCallAfter(ctx.reads, pass?.covered_to ?? -1);
  if (oldest === null) return 0;
  const since = Math.max(oldest, pass ? pass.started_at.getTime() / 1000 : Number.NEGATIVE_INFINITY);
  return Math.max(0, ctx.now().getTime() / 1000 - since);
}
