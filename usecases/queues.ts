// Every BullMQ queue of the service, by name: the workers run them, the API and the workers export
// their counts (bullmq_job_count), and the queue dashboard shows them.
import { BACKTEST_QUEUE, SCAN_QUEUE } from "./backtest-runs/jobs.js";
import { AGGREGATOR_QUEUE } from "./prepare/aggregator-queue.js";
import { PREPARE_QUEUE } from "./prepare/job.js";

/** The report card's grading pass (a repeatable job). */
export const GRADING_QUEUE = "grading";
/** Retention (a repeatable job). */
export const PURGE_QUEUE = "purge";

export const QUEUE_NAMES = [PREPARE_QUEUE, AGGREGATOR_QUEUE, BACKTEST_QUEUE, SCAN_QUEUE, GRADING_QUEUE, PURGE_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
