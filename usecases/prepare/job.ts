// The `prepare` job: its queue, its data, and the API's side of it (enqueue and await the worker's answer).
import type { Caller, JobClient } from "../../adapters/queue/request-reply.js";
import type { PrepareBodies, PrepareFiler, PrepareKind, PrepareResult } from "./types.js";
import { fromJobError } from "./queued-errors.js";

export const PREPARE_QUEUE = "prepare";
/** How long the API waits for the worker (the simulation included). */
export const PREPARE_TIMEOUT_MS = 10_000;

/** Prepares one client may have on the queue at once (issue 32: fair queues); past it, 429 BUSY. */
export const PREPARE_SHARE = 10;
/** Clock skew between API and worker hosts that a deadline allows for. */
const DEADLINE_GRACE_MS = 1000;

/** `deadline` (epoch ms): when the API stops waiting; a job found past it is dropped, stored nowhere. */
export type PrepareJobData = { kind: PrepareKind; body: PrepareBodies[PrepareKind]; filer?: PrepareFiler; deadline?: number };

/** True when the API that enqueued the job has stopped waiting for it (at `now`). */
export const isPastDeadline = (data: Pick<PrepareJobData, "deadline">, now = Date.now()): boolean =>
  data.deadline !== undefined && now > data.deadline + DEADLINE_GRACE_MS;

/** Runs the pipeline in a worker; the worker's ApiError comes back as the same code. */
export async function prepareThroughJob<K extends PrepareKind>(
  jobs: JobClient,
  kind: K,
  body: PrepareBodies[K],
  filer?: PrepareFiler,
  caller?: Caller,
): Promise<PrepareResult> {
  try {
    const data: PrepareJobData = { kind, body, filer, deadline: Date.now() + PREPARE_TIMEOUT_MS };
    return await jobs.run<PrepareResult>(PREPARE_QUEUE, kind, data, {
      timeoutMs: PREPARE_TIMEOUT_MS,
      keepResultSeconds: 60,
      caller,
      share: PREPARE_SHARE,
      removeWhenGone: true,
    });
  } catch (error) {
    throw fromJobError(error);
  }
}
