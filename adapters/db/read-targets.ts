// Where a read of the projections runs: a streaming standby (DATABASE_READ_URL) or the primary
// (DATABASE_URL). One per API or worker process; the projections' Kysely asks it for a pool at every
// connection it acquires (adapters/db/postgres-js-dialect.ts, `route`), and so do the hand-written
// statements (adapters/db/reads/statement.ts).
//
// Never older than what the agent saw: a read goes to a standby only once that standby has replayed
// the primary's WAL up to where it stood when the read began (the fence: pg_current_wal_insert_lsn(),
// one statement for every read that arrived in the same turn of the event loop). Everything an agent
// can have seen before it sent a request (an answer read on the primary or on any standby, a cursor,
// a sign request or a session written on the primary) was committed on the primary before that, so it
// lies below the fence. The insert position, not the write or flush position: the indexer commits with
// synchronous_commit off, so its commits are visible before their WAL is written.
//
// A standby that has not reached the fence is asked again (one statement per turn for every waiting
// read) until `waitMs`; past it the read goes to the next standby, then to the primary, and the standby
// is passed over until its replay reaches that fence. An async commit reaches a standby once the
// primary's WAL writer has written it (wal_writer_delay, 200 ms by default: docs/operations.md, "Topology").
//
// Replication lag: every `pollMs` the primary's flush position is sampled (fences are samples too: the
// flush position, what a standby can be sent; WAL inserted but not flushed, such as a page prune of a read,
// may wait for the next commit) and each standby's replay position read; a standby's lag is how long ago
// the primary first had flushed past what the standby has replayed. One that lags more than `maxLagMs`,
// or does not answer, is not read until it catches up (no wait for it then).
import type { Sql } from "postgres";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Logger } from "../logger.js";

/** The postgres.js pools of the projections' reads, one chosen per acquisition. */
export interface ReadRoute {
  /** The pool to run one query (or one transaction) on. */
  pick(): Promise<Sql>;
  /** Ends the monitor's connections and every standby's pool (the primary's pool is the dialect's). */
  close(): Promise<void>;
}

export type Standby = {
  /** How it is named in logs, the lag metric and /ready: its URL with the password redacted. */
  name: string;
  /** Its projections pool (createProjectionsPostgres). */
  pool: Sql;
  /** A connection of its own for replay positions (max 1). */
  monitor: Sql;
};

export type ReadTargetsOptions = {
  /** The primary's projections pool: reads go there when no standby will do. */
  primary: Sql;
  /** A connection to the primary for fences and samples (max 1). */
  primaryMonitor: Sql;
  standbys: Standby[];
  /** READ_MAX_LAG_MS. */
  maxLagMs: number;
  /** How often lag is measured (default 100 ms). */
  pollMs?: number;
  /** How long a read waits for a standby to reach its fence (default min(250 ms, maxLagMs)). */
  waitMs?: number;
  logger?: Logger;
};

export type ReadTargetStatus = {
  /** The standby's URL, password redacted. */
  name: string;
  /** Replay lag in ms (Infinity: not answering). */
  lagMs: number;
  /** True while reads may go to it. */
  serving: boolean;
};

/** 8 KiB WAL pages, 16 MiB segments: the insert position of a write at a page's start is past its header. */
const PAGE = 8192n;
const SEGMENT = 16n * 1024n * 1024n;

/**
 * An LSN ("16/B374D848") as a number. At the start of a page pg_current_wal_insert_lsn() points past the
 * page header while a replayed record ends at the page boundary: both count as the boundary.
 */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split("/");
  const lsn = (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
  if (lsn % SEGMENT === 40n) return lsn - 40n; // long page header
  if (lsn % PAGE === 24n) return lsn - 24n; // short page header
  return lsn;
}

/** Runs one statement for every caller of the same turn of the event loop; a caller never shares one sent before it arrived. */
class Batched<T> {
  #waiting: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  #scheduled = false;
  constructor(readonly run: () => Promise<T>) {}
  next(): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        const waiting = this.#waiting.splice(0);
        this.run().then(
          (v) => waiting.forEach((w) => w.resolve(v)),
          (e: unknown) => waiting.forEach((w) => w.reject(e)),
        );
      });
    });
  }
}

const QUERY_TIMEOUT_MS = 2_000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class StandbyState {
  readonly name: string;
  /** Replayed up to here, as last read. */
  replayed = -1n;
  lagMs = Number.POSITIVE_INFINITY;
  /** A fence it did not reach in time: passed over until its replay does. */
  behind: bigint | undefined;
  reads = 0;
  readonly replay: Batched<bigint>;
  constructor(readonly standby: Standby) {
    this.name = standby.name;
    this.replay = new Batched(async () => {
      const [row] = await within(standby.monitor<{ lsn: string | null }[]>`select pg_last_wal_replay_lsn()::text as lsn`, QUERY_TIMEOUT_MS);
      if (!row?.lsn) throw new Error("not a standby (no replay position)");
      const lsn = parseLsn(row.lsn);
      if (lsn > this.replayed) this.replayed = lsn;
      if (this.behind !== undefined && this.replayed >= this.behind) this.behind = undefined;
      return lsn;
    });
  }
}

export class ReadTargets implements ReadRoute {
  readonly #primary: Sql;
  readonly #primaryMonitor: Sql;
  readonly #standbys: StandbyState[];
  readonly #maxLagMs: number;
  readonly #pollMs: number;
  readonly #waitMs: number;
  readonly #logger?: Logger;
  readonly #fence: Batched<bigint>;
  /** The primary's flush position over time, oldest first (kept for a little more than maxLagMs). */
  #samples: { at: number; lsn: bigint }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #turn = 0;
  primaryReads = 0;

  constructor(options: ReadTargetsOptions) {
    this.#primary = options.primary;
    this.#primaryMonitor = options.primaryMonitor;
    this.#standbys = options.standbys.map((s) => new StandbyState(s));
    this.#maxLagMs = options.maxLagMs;
    this.#pollMs = options.pollMs ?? 100;
    this.#waitMs = options.waitMs ?? Math.min(250, options.maxLagMs);
    this.#logger = options.logger;
    this.#fence = new Batched(async () => {
      const [row] = await within(
        this.#primaryMonitor<
          { insert: string; flush: string }[]
        >`select pg_current_wal_insert_lsn()::text as insert, pg_current_wal_flush_lsn()::text as flush`,
        QUERY_TIMEOUT_MS,
      );
      this.#sample(parseLsn(row!.flush));
      return parseLsn(row!.insert);
    });
  }

  /** Starts measuring lag (idempotent). Until the first measure every standby counts as lagging. */
  start(): this {
    if (!this.#timer && !this.#closed) void this.#poll();
    return this;
  }

  async pick(): Promise<Sql> {
    const candidates = this.#serving();
    if (candidates.length === 0) return this.#onPrimary();
    let fence: bigint;
    try {
      fence = await this.#fence.next();
    } catch {
      return this.#onPrimary(); // the read fails there too, or the primary answers it
    }
    for (const s of candidates) if (s.replayed >= fence) return this.#on(s);
    const deadline = performance.now() + this.#waitMs;
    for (const s of candidates) {
      while (s.behind === undefined && performance.now() < deadline) {
        const replayed = await s.replay.next().catch(() => -1n);
        if (replayed >= fence) return this.#on(s);
        if (replayed < 0n) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      if (s.replayed < fence && s.behind === undefined) s.behind = fence;
    }
    return this.#onPrimary();
  }

  /** Every standby's lag and whether reads go to it. */
  status(): ReadTargetStatus[] {
    return this.#standbys.map((s) => ({ name: s.name, lagMs: s.lagMs, serving: s.lagMs <= this.#maxLagMs }));
  }

  /** True when no standby may be read (every read goes to the primary). */
  allLagging(): boolean {
    return this.#standbys.length > 0 && this.#standbys.every((s) => s.lagMs > this.#maxLagMs);
  }

  /** Reads sent to each target since start ("primary", or the standby's name). */
  readCounts(): Record<string, number> {
    return Object.fromEntries([["primary", this.primaryReads], ...this.#standbys.map((s) => [s.name, s.reads] as const)]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await Promise.allSettled([
      this.#primaryMonitor.end({ timeout: 1 }),
      ...this.#standbys.flatMap((s) => [s.standby.monitor.end({ timeout: 1 }), s.standby.pool.end({ timeout: 5 })]),
    ]);
  }

  /** Standbys that may be read now, rotated so that reads spread over them. */
  #serving(): StandbyState[] {
    const ok = this.#standbys.filter((s) => s.lagMs <= this.#maxLagMs && s.behind === undefined);
    if (ok.length < 2) return ok;
    const at = this.#turn++ % ok.length;
    return [...ok.slice(at), ...ok.slice(0, at)];
  }

  #on(s: StandbyState): Sql {
    s.reads++;
    return s.standby.pool;
  }

  #onPrimary(): Sql {
    this.primaryReads++;
    return this.#primary;
  }

  #sample(lsn: bigint): void {
    const now = performance.now();
    const last = this.#samples.at(-1);
    if (!last || lsn > last.lsn) this.#samples.push({ at: now, lsn });
    // Keep what can tell a lag up to maxLagMs and a little more; the newest always stays.
    const keepFrom = now - this.#maxLagMs - 5_000;
    while (this.#samples.length > 1 && this.#samples[0]!.at < keepFrom) this.#samples.shift();
  }

  /** How long ago the primary first stood past `replayed` (0 when it never did). */
  #lagOf(replayed: bigint, at: number): number {
    const first = this.#samples.find((x) => x.lsn > replayed);
    return first === undefined ? 0 : Math.max(0, at - first.at);
  }

  async #poll(): Promise<void> {
    try {
      await this.#fence.next();
    } catch (error) {
      this.#logger?.debug({ err: error }, "read targets: primary position unread");
    }
    await Promise.all(
      this.#standbys.map(async (s) => {
        const wasServing = s.lagMs <= this.#maxLagMs;
        try {
          const replayed = await s.replay.next();
          s.lagMs = this.#lagOf(replayed, performance.now());
        } catch (error) {
          s.lagMs = Number.POSITIVE_INFINITY;
          if (wasServing) this.#logger?.warn({ err: error, standby: s.name }, "read targets: standby does not answer; its reads go elsewhere");
        }
        const serving = s.lagMs <= this.#maxLagMs;
        if (serving !== wasServing && Number.isFinite(s.lagMs)) {
          this.#logger?.info(
            { standby: s.name, lagMs: Math.round(s.lagMs) },
            serving ? "read targets: standby caught up; reading it" : "read targets: standby lags; reading elsewhere",
          );
        }
      }),
    );
    if (!this.#closed) {
      this.#timer = setTimeout(() => void this.#poll(), this.#pollMs);
      this.#timer.unref();
    }
  }
}

/** agent_read_standby_lag_seconds{standby} (+Inf: not answering) and agent_projection_reads_total{target}, read at scrape time. */
export function readTargetMetrics(registry: Registry, targets: ReadTargets): void {
  new Gauge({
    name: "agent_read_standby_lag_seconds",
    help: "Replication lag of each standby the projections are read on (DATABASE_READ_URL); +Inf: not answering",
    labelNames: ["standby"],
    registers: [registry],
    collect() {
      for (const s of targets.status()) this.set({ standby: s.name }, s.lagMs / 1000);
    },
  });
  const counts = new Map<string, number>();
  new Counter({
    name: "agent_projection_reads_total",
    help: "Reads of the projections (queries and transactions) by where they ran: primary, or the standby",
    labelNames: ["target"],
    registers: [registry],
    collect() {
      for (const [target, n] of Object.entries(targets.readCounts())) {
        this.inc({ target }, n - (counts.get(target) ?? 0));
        counts.set(target, n);
      }
    },
  });
}
