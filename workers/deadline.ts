// Every job has a deadline (issue 51). A processor runs under it (adapters/deadline.ts): past it the job
// fails with an error that says what it was waiting on (a connection, a statement, its own code), its
// transaction is rolled back and its connections given back (the Postgres dialect sees the deadline), and
// the worker's slot is free for the next job, whether or not the processor's promise ever settles.
// A request-reply job's deadline is 3 times its caller's wait: its caller has long stopped waiting.
import { UnrecoverableError, type Job } from "bullmq";
import { DeadlineExceededError, runWithDeadline } from "../adapters/deadline.js";
import type { Logger } from "../adapters/logger.js";
import { ApiError } from "../domain/errors.js";
import { encodeApiError } from "../usecases/prepare/queued-errors.js";
import type { QueueName } from "../usecases/queues.js";

const MIN = 60_000;

/** Each queue's deadline (ms): a request-reply job's is 3 times its caller's wait; a repeatable job's is below its period or its lock's renewals' worth. */
export const JOB_DEADLINES_MS: Record<QueueName, number> = {
  prepare: 30_000, // the caller waits 10 s (PREPARE_TIMEOUT_MS)
  aggregator: 30_000, // the caller waits AGGREGATOR_WAIT_MS (3 s by default, 60 s at most)
  backtest: 60_000, // the caller waits 20 s (BACKTEST_TIMEOUT_MS)
  scan: 10 * MIN, // every 10 minutes: the finder board is the longest
  grading: 5 * MIN, // every minute: a pass takes seconds
  purge: 5 * MIN, // every 10 minutes, in bounded batches
};

/** True for the error of a job failed at its deadline (as thrown by `withDeadline`). */
export const isDeadlineExceeded = (error: unknown): boolean =>
  error instanceof DeadlineExceededError || (error instanceof Error && error.cause instanceof DeadlineExceededError);

/**
 * `processor` under a deadline of `ms`. A request-reply queue's failure is never retried (its caller is
 * gone): `reply: "api-error"` carries the ApiError the API answers (503 UNAVAILABLE), `"message"` the
 * deadline's message (the aggregator's callers read messages).
 */
export function withDeadline<J extends Job, R>(
  queue: string,
  ms: number,
  processor: (job: J) => Promise<R>,
  options: { logger?: Logger; reply?: "api-error" | "message" } = {},
): (job: J) => Promise<R> {
  return async (job) => {
    try {
      return await runWithDeadline(`${queue} job ${job.id ?? "?"} (${job.name})`, ms, () => processor(job));
    } catch (error) {
      if (!(error instanceof DeadlineExceededError)) throw error;
      options.logger?.error({ queue, jobId: job.id, deadlineMs: ms, waitingOn: error.waitingOn, err: error.message }, "job passed its deadline");
      if (!options.reply) throw error;
      const message =
        options.reply === "api-error"
          ? encodeApiError(new ApiError("UNAVAILABLE", `The job passed its deadline (${ms / 1000} s): retry shortly`))
          : error.message;
      throw Object.assign(new UnrecoverableError(message), { cause: error });
    }
  };
}
