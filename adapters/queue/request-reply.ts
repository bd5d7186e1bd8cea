// Request-reply over BullMQ: the API enqueues a job and awaits its result with a deadline; workers
// run it. Identical requests share one job when the caller gives a deterministic job id (a hash of the
// inputs), and a finished job's result is kept a while, so a repeat is answered from it.
import { redactUrl } from "../config.js";
import { Queue, QueueEvents, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";

export class QueueBusyError extends Error {
  override name = "QueueBusyError";
  constructor(
    readonly queue: string,
    readonly waiting: number,
  ) {
    super(`queue ${queue} has ${waiting} jobs waiting`);
  }
}

export class JobTimeoutError extends Error {
  override name = "JobTimeoutError";
  constructor(
    readonly queue: string,
    readonly timeoutMs: number,
  ) {
    super(`no result from ${queue} within ${timeoutMs} ms`);
  }
}

/** The job failed in the worker; `failedReason` is its message (e.g. an ApiError's JSON). */
export class JobFailedError extends Error {
  override name = "JobFailedError";
}

export type JobClientOptions = {
  redisUrl: string;
  /** BullMQ key prefix, e.g. `agent:bull`. */
  prefix: string;
  /** A queue with more waiting jobs than this refuses new ones (the caller answers 429 BUSY). */
  maxWaiting?: number;
};

export type RunOptions = { jobId?: string; timeoutMs: number; keepResultSeconds?: number };

export function createJobClient({ redisUrl, prefix, maxWaiting = 200 }: JobClientOptions) {
  // A producer whose Redis is down must fail at once, not hang: no offline queue.
  const connection = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  connection.on("error", () => {}); // state changes surface as failed commands
  const queues = new Map<string, { queue: Queue; events: QueueEvents }>();

  function get(name: string) {
    let q = queues.get(name);
    if (!q) {
      const queue = new Queue(name, { connection, prefix, skipWaitingForReady: true });
      queue.on("error", () => {});
      // QueueEvents blocks on XREAD: it needs a connection of its own that may wait.
      const events = new QueueEvents(name, { connection: { url: redisUrl, maxRetriesPerRequest: null } as never, prefix });
      events.on("error", () => {});
      q = { queue, events };
      queues.set(name, q);
    }
    return q;
  }

  /** Waits up to 2 s for the connection (a fresh one is still connecting); a dead Redis fails here. */
  async function ready() {
    if (connection.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Redis at ${redactUrl(redisUrl)} is not reachable`));
      }, 2000);
      const onReady = () => {
        cleanup();
        resolve();
      };
      const cleanup = () => {
        clearTimeout(timer);
        connection.off("ready", onReady);
      };
      connection.on("ready", onReady);
    });
  }

  return {
    /** Enqueues `data` on `queueName` and resolves with the worker's result. */
    async run<R>(queueName: string, jobName: string, data: unknown, opts: RunOptions): Promise<R> {
      await ready();
      const { queue, events } = get(queueName);
      await events.waitUntilReady();
      const waiting = await queue.getWaitingCount();
      if (waiting >= maxWaiting) throw new QueueBusyError(queueName, waiting);
      const jobOptions: JobsOptions = {
        jobId: opts.jobId,
        attempts: 2,
        removeOnComplete: { age: opts.keepResultSeconds ?? 600 },
        removeOnFail: { age: 60 },
      };
      const job = await queue.add(jobName, data, jobOptions);
      try {
        return (await job.waitUntilFinished(events, opts.timeoutMs)) as R;
      } catch (error) {
        const message = (error as Error).message ?? "";
        if (/timed out/i.test(message)) throw new JobTimeoutError(queueName, opts.timeoutMs);
        throw new JobFailedError(message);
      }
    },
    /** Workers connected to `queueName` now (one CLIENT LIST: for the rare path of a call that timed out). */
    async workers(queueName: string): Promise<number> {
      return get(queueName).queue.getWorkersCount();
    },
    async close() {
      await Promise.allSettled([...queues.values()].flatMap(({ queue, events }) => [queue.close(), events.close()]));
      connection.disconnect();
    },
  };
}

export type JobClient = ReturnType<typeof createJobClient>;
