// The `grading` queue's processor: one pass of matching and grading over every filing not final yet
// (usecases/report-card/run-grading.ts). A repeatable job (a BullMQ job scheduler, every minute); one at a time.
import type { Job, Queue } from "bullmq";
import type { Logger } from "../../adapters/logger.js";
import { runGrading, type GradingContext, type GradingSummary } from "../../usecases/report-card/run-grading.js";

export const GRADING_EVERY_MS = 60_000;

/** `indexReady` false (a fresh start's backfill): the pass is skipped, not failed; the next minute's runs. */
export function gradingProcessor(ctx: GradingContext & { logger: Logger; indexReady?: () => boolean }) {
  return async (_job: Job): Promise<GradingSummary | { skipped: string }> => {
    if (ctx.indexReady && !ctx.indexReady()) return { skipped: "the index is not ready" };
    const summary = await runGrading(ctx);
    if (summary.matched + summary.graded > 0) ctx.logger.info({ ...summary }, "report card graded");
    return summary;
  };
}

/** Idempotent: every worker process may call it at start. */
export async function scheduleGrading(queue: Queue, everyMs = GRADING_EVERY_MS): Promise<void> {
  await queue.upsertJobScheduler("grading", { every: everyMs }, { name: "grade", data: {}, opts: { removeOnComplete: 20, removeOnFail: 50 } });
}
