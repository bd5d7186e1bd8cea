// Wakes long-polling activity requests (GET .../activity?waitMs=) when their owner's changes are
// indexed. One waker per API process; a waiting request holds no Postgres connection, only a slot in
// this waker's map, and re-reads the feed when woken.
//
// Why a poller and not LISTEN/NOTIFY: a NOTIFY needs a trigger on the activity table, and that table
// is Ponder's: it lives in the indexer's schema, which a reindex replaces with a new one (and a new
// devnet genesis drops and recreates), so a trigger installed by the API's migration silently goes
// missing; the views schema the API reads cannot carry row triggers at all. The poller reads only
// the views schema, so it survives reindexes, and costs one indexed query per tick for the whole
// process, however many requests wait:
//
//   select owner, max(position) from activity where position > $last group by owner
//   union all select null, max(position) from activity
//
// (the positions index makes both parts index scans of the new rows only). It runs while requests
// wait and stops when idle. A subscriber must await `ready` (the poller's starting point is set)
// before it reads the feed, so nothing committed between its read and the poller's start is missed.
//
// Reorgs: Ponder deletes the reverted rows and inserts the new branch's. When a tick sees the table's
// newest position fall below the last one seen, rows were reverted: every waiter is woken (it
// re-reads its feed, which answers `reorged`) and the poller rewinds. A reorg whose revert and
// replacement commit between two ticks and leave an owner with no new rows is not seen here; that
// owner's request answers `reorged` at its deadline, when the long poll reads the feed once more.
import type { Kysely } from "kysely";
import { activityOwnersAfter, newestActivityPosition } from "../../adapters/db/reads/activity-positions.js";
import type { Logger } from "../../adapters/logger.js";
import type { Projections } from "../../adapters/db/projections.js";

/** How often the poller looks for new rows while requests wait. */
export const DEFAULT_TICK_MS = 100;
/** How long the poller keeps ticking after the last waiter left (so a re-poll needs no restart). */
export const DEFAULT_IDLE_STOP_MS = 5_000;

export type ActivityWakerOptions = {
  reads: Kysely<Projections>;
  logger?: Logger;
  tickMs?: number;
  idleStopMs?: number;
};

/** One waiting request's registration. */
export type ActivitySubscription = {
  /** Resolves once the poller has its starting point: read the feed after this. */
  ready: Promise<void>;
  /**
   * Resolves true when the owner's changes were indexed since the last call (at once when that
   * already happened), false after `timeoutMs` or when `signal` aborts.
   */
  next(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): void;
};

export type ActivityWakerStats = {
  /** Requests waiting now. */
  waiters: number;
  /** Owners with at least one waiting request. */
  owners: number;
  /** Ticks (queries) run since the waker was made. */
  ticks: number;
  /** Wakes delivered since the waker was made. */
  wakes: number;
  running: boolean;
};

type Waiter = { pending: boolean; notify?: () => void };

export class ActivityWaker {
  readonly #reads: Kysely<Projections>;
  readonly #logger?: Logger;
  readonly #tickMs: number;
  readonly #idleStopMs: number;
  readonly #byOwner = new Map<string, Set<Waiter>>();
  #count = 0;
  #last: bigint | undefined;
  #start: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #idleSince = 0;
  #ticks = 0;
  #wakes = 0;
  /** Bumped by stop(): a tick of an earlier run does not schedule another. */
  #run = 0;

  constructor(options: ActivityWakerOptions) {
    this.#reads = options.reads;
    this.#logger = options.logger;
    this.#tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    this.#idleStopMs = options.idleStopMs ?? DEFAULT_IDLE_STOP_MS;
  }

  subscribe(owner: string): ActivitySubscription {
    const key = owner.toLowerCase();
    const waiter: Waiter = { pending: false };
    let set = this.#byOwner.get(key);
    if (!set) this.#byOwner.set(key, (set = new Set()));
    set.add(waiter);
    this.#count++;
    const ready = this.#ensureRunning();
    let closed = false;
    return {
      ready,
      next: (timeoutMs, signal) => {
        if (waiter.pending || closed) {
          const woke = waiter.pending;
          waiter.pending = false;
          return Promise.resolve(woke);
        }
        return new Promise<boolean>((resolve) => {
          const done = (woke: boolean) => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            waiter.notify = undefined;
            waiter.pending = false;
            resolve(woke);
          };
          const onAbort = () => done(false);
          const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
          if (signal?.aborted) return done(false);
          signal?.addEventListener("abort", onAbort, { once: true });
          waiter.notify = () => done(true);
        });
      },
      close: () => {
        if (closed) return;
        closed = true;
        waiter.notify?.();
        const owned = this.#byOwner.get(key);
        if (owned?.delete(waiter) && owned.size === 0) this.#byOwner.delete(key);
        this.#count--;
        if (this.#count === 0) this.#idleSince = Date.now();
      },
    };
  }

  stats(): ActivityWakerStats {
    return { waiters: this.#count, owners: this.#byOwner.size, ticks: this.#ticks, wakes: this.#wakes, running: this.#start !== undefined };
  }

  /** Stops the poller (waiting requests then wake only at their deadline). */
  stop(): void {
    this.#run++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#start = undefined;
    this.#last = undefined;
  }

  #ensureRunning(): Promise<void> {
    if (this.#start) return this.#start;
    const run = this.#run;
    const start = this.#newestPosition().then(
      (newest) => {
        if (run !== this.#run) return;
        this.#last = newest;
        this.#schedule();
      },
      (error: unknown) => {
        // The next subscriber tries again; this one's request fails like any read would.
        if (this.#start === start) this.#start = undefined;
        throw error;
      },
    );
    this.#start = start;
    return start;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#tick(), this.#tickMs);
    this.#timer.unref();
  }

  async #newestPosition(): Promise<bigint> {
    return newestActivityPosition(this.#reads);
  }

  async #tick(): Promise<void> {
    if (this.#count === 0 && Date.now() - this.#idleSince >= this.#idleStopMs) return this.stop();
    const last = this.#last ?? 0n;
    const run = this.#run;
    try {
      const rows = await activityOwnersAfter(this.#reads, last);
      this.#ticks++;
      if (run !== this.#run) return; // stopped meanwhile
      let newest = last;
      let tableMax: bigint | undefined;
      for (const row of rows) {
        const position = row.position == null ? undefined : BigInt(row.position);
        if (row.owner === null) {
          tableMax = position ?? 0n;
          continue;
        }
        if (position !== undefined && position > newest) newest = position;
        for (const waiter of this.#byOwner.get(row.owner.toLowerCase()) ?? []) this.#wake(waiter);
      }
      if (tableMax !== undefined && tableMax < last) {
        // Rows at or below `last` were reverted (a reorg): every waiter re-reads its feed.
        for (const set of this.#byOwner.values()) for (const waiter of set) this.#wake(waiter);
        this.#last = tableMax;
      } else {
        this.#last = newest;
      }
    } catch (error) {
      this.#logger?.warn({ err: error }, "activity waker: tick failed; retrying");
    }
    if (run === this.#run) this.#schedule();
  }

  #wake(waiter: Waiter): void {
    this.#wakes++;
    waiter.pending = true;
    waiter.notify?.();
  }
}
