// The `aggregator` queue's processor: one aggregator call per job. The queue's Worker carries the
// route budget as its BullMQ limiter ({max: AGGREGATOR_BUDGET_PER_SECOND, duration: 1000}). Failures
// never retry (a stale quote is worthless): the reason says no route, unavailable or expired.
import { UnrecoverableError, type Job, type WorkerOptions } from "bullmq";
import type { Aggregator } from "../../adapters/chain/aggregator.js";
import type { Logger } from "../../adapters/logger.js";
import { runAggregatorJob, type AggregatorJobData, type AggregatorJobResult } from "../../usecases/prepare/aggregator-queue.js";

export function aggregatorProcessor(aggregator: Aggregator | undefined, logger?: Logger) {
  return async (job: Job<AggregatorJobData>): Promise<AggregatorJobResult> => {
    try {
      return await runAggregatorJob(aggregator, job.data);
    } catch (error) {
      logger?.debug({ op: job.data.op, err: (error as Error).message }, "aggregator job failed");
      throw new UnrecoverableError((error as Error).message);
    }
  };
}

/** The Worker options of the queue: the budget as its limiter. */
export function aggregatorWorkerOptions(budgetPerSecond: number): Pick<WorkerOptions, "limiter" | "concurrency"> {
  return { limiter: { max: budgetPerSecond, duration: 1000 }, concurrency: Math.min(16, Math.max(1, budgetPerSecond)) };
}
