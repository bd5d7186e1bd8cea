// The `prepare` job: its queue, its data, and the API's side of it (enqueue and await the worker's answer).
import type { JobClient } from "../../adapters/queue/request-reply.js";
import type { PrepareBodies, PrepareFiler, PrepareKind, PrepareResult } from "./types.js";
import { fromJobError } from "./queued-errors.js";

export const PREPARE_QUEUE = "prepare";
/** How long the API waits for the worker (the simulation included). */
export const PREPARE_TIMEOUT_MS = 10_000;

export type PrepareJobData = { kind: PrepareKind; body: PrepareBodies[PrepareKind]; filer?: PrepareFiler };

/** Runs the pipeline in a worker; the worker's ApiError comes back as the same code. */
export async function prepareThroughJob<K extends PrepareKind>(jobs: JobClient, kind: K, body: PrepareBodies[K], filer?: PrepareFiler): Promise<PrepareResult> {
  try {
    return await jobs.run<PrepareResult>(PREPARE_QUEUE, kind, { kind, body, filer } satisfies PrepareJobData, {
      timeoutMs: PREPARE_TIMEOUT_MS,
      keepResultSeconds: 60,
    });
  } catch (error) {
    throw fromJobError(error);
  }
}
