// The `scan` queue's processor: the repeatable grid-token and ladder-token scans and the strategy
// finder's board (job names are the scan kinds). Each stores its result in scan_result; the job's
// return value is a short summary (the stored result is what the routes read).
import type { Job } from "bullmq";
import { runGridScan, runLadderScan, scanKinds, type ScanContext, type ScanKind } from "../../usecases/backtest-runs/scans.js";
import { strategyFinderBoard } from "./strategy-finder.js";

export function scanProcessor(ctx: ScanContext) {
  let saidWaiting = false;
  return async (job: Job): Promise<unknown> => {
    const kind = job.name as ScanKind;
    if (!scanKinds.includes(kind)) throw new Error(`unknown scan ${job.name}`);
    // Before the index is ready (a fresh start's backfill) there is nothing to scan, and no fault: every
    // scan runs again the moment it becomes ready (workers/main.ts).
    if (ctx.indexReady && !ctx.indexReady()) {
      if (!saidWaiting) ctx.logger.info({ scan: kind }, "scans wait for the index; they run once it is ready");
      saidWaiting = true;
      return { skipped: "the index is not ready" };
    }
    const started = Date.now();
    try {
      const summary =
        kind === "grid-tokens"
          ? { tokens: (await runGridScan(ctx)).tokens.length }
          : kind === "ladder-tokens"
            ? { tokens: (await runLadderScan(ctx)).tokens.length }
            : await strategyFinderBoard(ctx);
      ctx.logger.info({ scan: kind, ms: Date.now() - started, ...summary }, "scan stored");
      return summary;
    } catch (error) {
      ctx.logger.warn({ scan: kind, err: (error as Error).message }, "scan failed");
      throw error;
    }
  };
}
