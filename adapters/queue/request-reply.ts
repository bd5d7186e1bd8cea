// Request-reply over BullMQ: the API enqueues a job and awaits its result with a deadline; workers
// run it. Identical requests share one job when the caller gives a deterministic job id (a hash of the
// inputs), and a finished job's result is kept a while, so a repeat is answered from it.
//
// Fair shares (issue 32): a call that names its caller (the rate limit's client key) and a share holds
// one of that client's places on the queue while it waits (a Redis counter per queue and client, taken
// atomically, given back when the call ends, expiring on its own should a process die holding it); past
// its share the client gets QueueBusyError while others still get through. Its job's BullMQ priority is
// the number of places the client holds, so a client's first job goes ahead of a flooder's tenth.
// A caller that gives up (its deadline, or its request's signal: the client disconnected) removes its
// job when it is still waiting, and marks it gone otherwise (`isGone`), so the worker drops the result.
import { redactUrl } from "../config.js";
import { type Job, type Queue, QueueEvents, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { newRedis, redisOptions, type RedisSentinel } from "../redis.js";
import { serviceQueue } from "./options.js";

export class QueueBusyError extends Error {
  override name = "QueueBusyError";
  constructor(
    readonly queue: string,
    readonly waiting: number,
    /** True when the caller's own share is full (the queue itself is not). */
    readonly ownShare = false,
  ) {
    super(ownShare ? `the caller holds ${waiting} jobs of queue ${queue}, its share` : `queue ${queue} has ${waiting} jobs waiting`);
  }
}

/** The caller gave up (disconnected, or its deadline passed): nothing is answered or stored for it. */
export class CallerGoneError extends Error {
  override name = "CallerGoneError";
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
  /** Redis under Sentinel: the master is asked of these (REDIS_SENTINELS). */
  sentinel?: RedisSentinel;
  /** BullMQ key prefix, e.g. `agent:bull`. */
  prefix: string;
  /** A queue with more waiting jobs than this refuses new ones (the caller answers 429 BUSY). */
  maxWaiting?: number;
};

/** Who waits for a job: the rate limit's client key, and the request's signal (aborted when it disconnects). */
export type Caller = { client: string; signal?: AbortSignal };

export type RunOptions = {
  jobId?: string;
  timeoutMs: number;
  keepResultSeconds?: number;
  /** With `share`: the caller whose places on the queue this call takes. */
  caller?: Caller;
  /** Jobs one caller may have on this queue at once. */
  share?: number;
  /** The job is this caller's alone (no shared job id): remove it, or mark it gone, when the caller gives up. */
  removeWhenGone?: boolean;
};

/** INCR a caller's count with an expiry; past the share, undo and answer minus the count. */
const TAKE_SHARE = `local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return -n end
return n`;
const GIVE_SHARE = `local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n`;
/** How long a gone mark is kept (longer than any job runs). */
const GONE_MS = 10 * 60 * 1000;

/** Waits up to 2 s for the connection (a fresh one is still connecting); a dead Redis fails here. */
async function whenReady(connection: Redis, redisUrl: string): Promise<void> {
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

/** A promise that rejects once the caller disconnects (none without a signal), and how to stop listening. */
function whenCallerGone(signal: AbortSignal | undefined): { aborted: Promise<never> | undefined; detach: () => void } {
  let onAbort: (() => void) | undefined;
  const aborted = signal
    ? new Promise<never>((_, reject) => {
        onAbort = () => reject(new CallerGoneError("the caller disconnected"));
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      })
    : undefined;
  return {
    aborted,
    detach: () => {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** The worker's result; a caller gone or a timeout gives up a job that is the caller's alone (`removeWhenGone`). */
async function resultOf<R>(job: Job, events: QueueEvents, queueName: string, opts: RunOptions, giveUp: (jobId: string) => Promise<void>): Promise<R> {
  const { aborted, detach } = whenCallerGone(opts.caller?.signal);
  try {
    const finished = job.waitUntilFinished(events, opts.timeoutMs);
    return (await (aborted ? Promise.race([finished, aborted]) : finished)) as R;
  } catch (error) {
    const gone = error instanceof CallerGoneError;
    const message = (error as Error).message ?? "";
    const timedOut = !gone && /timed out/i.test(message);
    if ((gone || timedOut) && opts.removeWhenGone && job.id) await giveUp(job.id);
    if (gone) throw error;
    if (timedOut) throw new JobTimeoutError(queueName, opts.timeoutMs);
    throw new JobFailedError(message);
  } finally {
    detach();
  }
}

const jobOptionsOf = (opts: RunOptions, held: number): JobsOptions => ({
  jobId: opts.jobId,
  attempts: 2,
  removeOnComplete: { age: opts.keepResultSeconds ?? 600 },
  removeOnFail: { age: 60 },
  ...(held > 0 ? { priority: held } : {}),
});

/** The longest a job client's close waits for its queues and event readers. */
const CLOSE_WAIT_MS = 2000;

export function createJobClient({ redisUrl, sentinel, prefix, maxWaiting = 200 }: JobClientOptions) {
  // A producer whose Redis is down must fail at once, not hang: no offline queue.
  const connection = newRedis(redisUrl, sentinel, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  connection.on("error", () => {}); // state changes surface as failed commands
  const queues = new Map<string, { queue: Queue; events: QueueEvents }>();

  function get(name: string) {
    let q = queues.get(name);
    if (!q) {
      const queue = serviceQueue(name, { connection, prefix, skipWaitingForReady: true });
      queue.on("error", () => {});
      // QueueEvents blocks on XREAD: it needs a connection of its own that may wait.
      const events = new QueueEvents(name, {
        connection: (sentinel ? redisOptions(redisUrl, sentinel, { maxRetriesPerRequest: null }) : { url: redisUrl, maxRetriesPerRequest: null }) as never,
        prefix,
      });
      events.on("error", () => {});
      q = { queue, events };
      queues.set(name, q);
    }
    return q;
  }

  /** Removes a job still waiting; one already running is marked gone for its worker. */
  async function giveUp(queue: Queue, queueName: string, jobId: string): Promise<void> {
    const removed = await queue.remove(jobId).catch(() => 0);
    if (removed !== 1) await connection.set(`${prefix}:gone:${queueName}:${jobId}`, "1", "PX", GONE_MS).catch(() => {});
  }

  return {
    /** Enqueues `data` on `queueName` and resolves with the worker's result. */
    async run<R>(queueName: string, jobName: string, data: unknown, opts: RunOptions): Promise<R> {
      await whenReady(connection, redisUrl);
      const { queue, events } = get(queueName);
      await events.waitUntilReady();
      const shareKey = opts.caller && opts.share ? `${prefix}:share:${queueName}:${opts.caller.client}` : undefined;
      let held = 0;
      if (shareKey) {
        held = Number(await connection.eval(TAKE_SHARE, 1, shareKey, String(opts.share), String(opts.timeoutMs + 60_000)));
        if (held < 0) throw new QueueBusyError(queueName, -held - 1, true);
      }
      try {
        const waiting = await queue.getJobCountByTypes("waiting", "prioritized");
        if (waiting >= maxWaiting) throw new QueueBusyError(queueName, waiting);
        const job = await queue.add(jobName, data, jobOptionsOf(opts, held));
        return await resultOf<R>(job, events, queueName, opts, (jobId) => giveUp(queue, queueName, jobId));
      } finally {
        if (shareKey && held > 0) await connection.eval(GIVE_SHARE, 1, shareKey).catch(() => {});
      }
    },
    /** True when the caller of this job gave up while it ran: its result must not be stored. */
    async isGone(queueName: string, jobId: string): Promise<boolean> {
      return (await connection.exists(`${prefix}:gone:${queueName}:${jobId}`)) === 1;
    },
    /** Workers connected to `queueName` now (one CLIENT LIST: for the rare path of a call that timed out). */
    async workers(queueName: string): Promise<number> {
      return get(queueName).queue.getWorkersCount();
    },
    async close() {
      // A QueueEvents closed while its connection is reconnecting (just after a Redis restart) never settles:
      // its pending blocking read is never rejected (taskforcesh/bullmq#4656, redis/ioredis#2169), though its
      // socket is gone. Waited for a moment, not for ever, so a stop right after a Redis blip is not stuck.
      const closing = [...queues.values()].flatMap(({ queue, events }) => [queue.close(), events.close()]);
      await Promise.race([Promise.allSettled(closing), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
      connection.disconnect();
    },
  };
}

export type JobClient = ReturnType<typeof createJobClient>;
