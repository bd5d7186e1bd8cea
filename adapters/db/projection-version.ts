// Knows when the projections may have changed, so that read answers can be kept in memory and
// dropped exactly then (usecases/read-cache.ts). One per API process.
//
// Ponder (with a views schema) runs, in the transaction of every realtime block, a statement trigger
// on its `_ponder_checkpoint` table that sends `pg_notify('<views>_live_query', '["activity",...]')`:
// the tables the block wrote. NOTIFY is delivered at commit, so on receipt the rows are visible. We
// LISTEN on it and bump a version per table. Three writes send no notification, so a poll backs it up
// every `pollMs` (one statement):
//   - backfill (after a crash restart, into the tables the views show): the views' checkpoint moves
//     with no notification;
//   - a reindex that re-creates the views over another schema (and every restart: Ponder re-creates
//     the views at ready): the checkpoint view's OID changes;
//   - a reorg: Ponder reverts rows in a transaction that does not touch the checkpoint, but drops and
//     re-creates its triggers on `_ponder_checkpoint` (new trigger OIDs), visible at that commit; the
//     replacement blocks then notify as usual. A revert is thus seen within one poll, not at once.
// The same statement sends a heartbeat NOTIFY on a channel of this process, received on the listen
// connection. Postgres delivers notifications in commit order, so once heartbeat k is received every
// notification of a commit that poll k could see has been received too: a checkpoint move seen by
// poll k with no block notification since the last explained move is a silent write (bump all).
//
// Unusable (snapshot() undefined: callers bypass any cache) until the first heartbeat, and whenever
// the last heartbeat is older than `staleMs` (listen connection down, Postgres down, views missing,
// e.g. before the first backfill or with the indexer on PGlite). A re-LISTEN after a reconnect (the
// only way a notification is lost) and any silent write bump every version, so nothing filled
// before is served again; a heartbeat that was only late bumps nothing.
//
// Activity answers depend on one owner's rows only, and the activity log is append-only (a reorg
// deletes the reverted rows): on a notification that names `activity`, one query reads which owners
// have rows above the newest position seen so far, and bumps those owners alone. Until it answers,
// activity snapshots are undefined (bypass). The same query reads the trigger OIDs: a reorg committed
// before this block (its replacement rows may lie below the newest position seen) bumps all activity.
//
// Correctness rule for callers: take the version BEFORE the database read that fills an entry, and
// serve the entry only while isCurrent(version): a commit landing during or after the read bumps it.
// A commit is visible to other sessions a little before its notification reaches this process
// (scheduling of the listening backend): barrier() closes that gap. It sends a heartbeat NOTIFY of its
// own after the caller arrived and resolves when it comes back on the listen connection: Postgres
// delivers notifications in commit order, so by then every commit visible before the call has been
// heard. One barrier statement serves every caller that arrived in the same turn of the event loop;
// barriers go on a connection of their own (never queued behind a poll or owner query), up to
// MAX_BARRIERS_IN_FLIGHT pipelined at once, so a caller waits about one round trip.
import { randomBytes } from "node:crypto";
import type { Sql } from "postgres";
import type { Logger } from "../logger.js";
import { assertSchemaName } from "./api-schema.js";
import { createPostgres } from "./connect.js";

export const DEFAULT_POLL_MS = 200;
/** The least `staleMs` by default. */
const MIN_STALE_MS = 2_000;
/** A poll (or owner query) that has not answered after this long: its connection is dropped and made again. */
const QUERY_TIMEOUT_MS = 5_000;

/** What the answer caches need of a tracker. */
export interface VersionSource {
  /**
   * The current version for answers that depend on `table` (all tables when omitted), or only on
   * `owner`'s rows of the activity log (`table` "activity" with `owner`, lowercase); undefined: do not
   * cache now.
   */
  snapshot(table?: string, owner?: string): number | undefined;
  /**
   * The current version for answers made of `owner`'s rows of the owner tables (OWNER_TABLES) and of
   * the shared `tables` (every row of them); undefined: do not cache now. Owner rows are tracked
   * through the activity log: the indexer writes an activity row for every owner (and receiver) of a
   * row it writes in an owner table.
   */
  ownerSnapshot?(owner: string, tables: readonly string[]): number | undefined;
  /** True while the tracker is usable and nothing the answer depends on changed since `version`. */
  isCurrent(version: number, table?: string, owner?: string): boolean;
  /**
   * Resolves true once every commit visible before this call has been notified to this tracker (a
   * heartbeat sent after the call came back: notifications arrive in commit order), false when that
   * cannot be known in time (then do not serve from memory). Check the version after it.
   */
  barrier(): Promise<boolean>;
  /**
   * Resolves once no per-owner activity lookup is pending (at once when none is), or after
   * `timeoutMs`: a poll that arrives while a block's owners are being read waits for them instead of
   * going to the database (then its snapshot is defined again).
   */
  ownersSettled?(timeoutMs: number): Promise<void>;
}

/**
 * Barriers pipelined at once at most. Under load a barrier per turn of the event loop costs Postgres
 * and this process more than it saves in waiting; callers past this wait for the next one.
 */
const MAX_BARRIERS_IN_FLIGHT = 2;

/** The per-owner table. */
export const ACTIVITY_TABLE = "activity";

/**
 * The OIDs of the triggers on every `_ponder_checkpoint` table, as one text (SQL, no parameters): Ponder's
 * reorg revert drops and re-creates them in the transaction that reverts rows without moving the checkpoint,
 * so a change of this text is a reorg (or re-created views). The tracker's poll and owner query read it, and
 * so does the account statement's version of its shared rows (adapters/db/reads/accounts.ts).
 */
export const CHECKPOINT_TRIGGERS_SQL = `coalesce((select string_agg(tg.oid::text, ',' order by tg.oid) from pg_trigger tg
  join pg_class c on c.oid = tg.tgrelid where c.relname = '_ponder_checkpoint'), '')`;
/**
 * Tables whose rows belong to owners (an account reads them by owner or receiver). Every indexing
 * handler that writes one also logs an activity change for each owner or receiver of the row
 * (src/), so the activity owners of a block are the owners whose rows changed. A block that
 * writes one of these without writing activity bumps every owner (it should not happen).
 */
export const OWNER_TABLES: ReadonlySet<string> = new Set([
  ACTIVITY_TABLE,
  "vault_position",
  "deposit_request",
  "withdrawal_request",
  "limit_order",
  "grid",
  "ladder",
  "ladder_leg",
  "basket_balance",
]);
/** Owners whose last change is remembered; past it the map starts over (bumping all activity). */
const MAX_TRACKED_OWNERS = 200_000;

export type ProjectionVersionOptions = {
  url: string;
  viewsSchema: string;
  pollMs?: number;
  /** Unusable when the last heartbeat is older than this (default 3 poll intervals, at least 2 s). */
  staleMs?: number;
  logger?: Logger;
  /** application_name of the poll connection; the listen connection gets `-listen` appended. */
  applicationName?: string;
};

export type ProjectionVersionStats = {
  usable: boolean;
  version: number;
  notifications: number;
  heartbeats: number;
  polls: number;
  pollErrors: number;
  bumpsAll: number;
  listens: number;
};

type Fingerprint = { checkpoint: string; structure: string };

/** The table a Ponder table name in a notification stands for (partitions are `<table>_<chainId>`). */
export function notifiedTable(name: string): string {
  return name.replace(/_\d+$/, "");
}

/** The tables of one notification payload (a JSON array of names), or undefined when it is not one. */
export function parseNotification(payload: string): string[] | undefined {
  try {
    const value = JSON.parse(payload) as unknown;
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return undefined;
    return value.map(notifiedTable);
  } catch {
    return undefined;
  }
}

export class ProjectionVersion implements VersionSource {
  readonly #url: string;
  readonly #views: string;
  readonly #pollMs: number;
  readonly #staleMs: number;
  readonly #logger?: Logger;
  readonly #appName: string;
  readonly #liveChannel: string;
  readonly #heartbeatChannel = `agent_version_${process.pid}_${randomBytes(6).toString("hex")}`;
  #sql: Sql;
  /** Barrier heartbeats only (pipelined): a slow owner query on #sql never delays a hit. */
  #barrierSql: Sql;
  #listener: Sql | undefined;
  #listenStartedAt = 0;

  // Versions: one sequence; per table the sequence value of its last change, and of the last change of all.
  #seq = 1;
  #allAt = 1;
  #anyAt = 1;
  readonly #tableAt = new Map<string, number>();
  /** Per owner (lowercase): the sequence value of its last activity change. */
  readonly #ownerAt = new Map<string, number>();
  /** Activity-wide change (every owner): a revert, a lost track, or the first activity notification. */
  #activityAllAt = 1;
  /** The newest activity position seen by the owner query (undefined: not known, next notification bumps all activity). */
  #lastPosition: string | undefined;
  /** Trigger OIDs seen by the owner query. */
  #ownerStructure: string | undefined;
  /** An owner query is needed (a notification named activity) / running. */
  #ownersDirty = false;
  #ownersRunning = false;
  /** Callers of ownersSettled() waiting for the owner lookup to finish. */
  #ownersWaiters: (() => void)[] = [];

  #lastHeartbeatAt = -Infinity;
  #usable = false;
  #pollSeq = 0;
  readonly #pending = new Map<number, { fingerprint?: Fingerprint; heard?: boolean }>();
  #last: Fingerprint | undefined;
  /** Block notifications received since the last checkpoint move they explained. */
  #unexplained = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Callers waiting for a barrier not sent yet (sent at the end of this turn of the event loop). */
  #barrierQueue: ((ok: boolean) => void)[] = [];
  #barrierScheduled = false;
  /** Barriers sent and not heard yet, by id (ascending: Map keeps insertion order). */
  readonly #barriersInFlight = new Map<number, { waiters: ((ok: boolean) => void)[]; timer: NodeJS.Timeout }>();
  #barrierSeq = 0;
  /** When the first successful poll since the last heartbeat heard completed (its heartbeat is due). */
  #firstUnheardPollAt: number | undefined;
  readonly #stats = { notifications: 0, heartbeats: 0, polls: 0, pollErrors: 0, bumpsAll: 0, listens: 0 };

  constructor(options: ProjectionVersionOptions) {
    this.#url = options.url;
    this.#views = assertSchemaName(options.viewsSchema);
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    // Not tighter than 2 s: a loaded process hears its heartbeat late without having lost anything.
    this.#staleMs = options.staleMs ?? Math.max(3 * this.#pollMs, MIN_STALE_MS);
    this.#logger = options.logger;
    this.#appName = options.applicationName ?? "agent-api-version";
    this.#liveChannel = `${this.#views}_live_query`;
    this.#sql = createPostgres({ url: this.#url, max: 1, applicationName: this.#appName });
    this.#barrierSql = this.#barrierConnection();
  }

  /** The connection barriers are pipelined on (made again when one of them is not heard in time). */
  #barrierConnection(): Sql {
    return createPostgres({ url: this.#url, max: 1, applicationName: `${this.#appName}-barrier` });
  }

  /** Starts listening and polling (idempotent). The tracker turns usable at the first heartbeat. */
  start(): this {
    if (this.#closed || this.#timer || this.#listener) return this;
    this.#listen();
    this.#schedule(0);
    return this;
  }

  snapshot(table?: string, owner?: string): number | undefined {
    if (!this.#checkUsable()) return undefined;
    if (owner !== undefined && table === ACTIVITY_TABLE) return this.#ownersDirty || this.#ownersRunning ? undefined : this.#ownerVersion(owner);
    return this.#versionOf(table);
  }

  ownerSnapshot(owner: string, tables: readonly string[]): number | undefined {
    if (!this.#checkUsable() || this.#ownersDirty || this.#ownersRunning) return undefined;
    let version = this.#ownerVersion(owner);
    for (const table of tables) version = Math.max(version, this.#versionOf(table));
    return version;
  }

  isCurrent(version: number, table?: string, owner?: string): boolean {
    return this.snapshot(table, owner) === version;
  }

  get usable(): boolean {
    return this.#checkUsable();
  }

  stats(): ProjectionVersionStats {
    return { usable: this.#checkUsable(), version: this.#seq, ...this.#stats };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#usable = false;
    const listener = this.#listener;
    this.#listener = undefined;
    this.#finishBarriers(false);
    for (const resolve of this.#barrierQueue.splice(0)) resolve(false);
    for (const done of this.#ownersWaiters.splice(0)) done();
    await Promise.allSettled([this.#sql.end({ timeout: 1 }), this.#barrierSql.end({ timeout: 1 }), listener?.end({ timeout: 0 })]);
  }

  ownersSettled(timeoutMs: number): Promise<void> {
    if (!this.#ownersDirty && !this.#ownersRunning) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#ownersWaiters.push(done);
    });
  }

  barrier(): Promise<boolean> {
    if (this.#closed || !this.#checkUsable()) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#barrierQueue.push(resolve);
      if (this.#barrierScheduled) return;
      this.#barrierScheduled = true;
      // Every caller of this turn shares one statement. A barrier in flight cannot cover them (it may
      // have been sent before they arrived): a new one goes out now, or when one in flight is heard.
      setImmediate(() => this.#sendBarrier());
    });
  }

  /** Sends one barrier heartbeat for every caller queued so far (unless enough are in flight: then when one is heard). */
  #sendBarrier(): void {
    this.#barrierScheduled = false;
    if (this.#barrierQueue.length === 0) return;
    if (this.#closed) {
      for (const resolve of this.#barrierQueue.splice(0)) resolve(false);
      return;
    }
    if (this.#barriersInFlight.size >= MAX_BARRIERS_IN_FLIGHT) return; // sent when one is heard
    const id = ++this.#barrierSeq;
    const waiters = this.#barrierQueue.splice(0);
    const sql = this.#barrierSql;
    const timer = setTimeout(() => {
      this.#finishBarriers(false, id);
      // Not heard in time: the connection may hang on a dead peer; later barriers go on a new one.
      if (!this.#closed && this.#barrierSql === sql) {
        this.#barrierSql = this.#barrierConnection();
        void sql.end({ timeout: 0 }).catch(() => {});
      }
    }, this.#staleMs);
    this.#barriersInFlight.set(id, { waiters, timer });
    sql`select pg_notify(${this.#heartbeatChannel}, ${`b${id}`})`.catch(() => this.#finishBarriers(false, id));
  }

  /**
   * Settles the barriers in flight up to `upTo` (all when omitted). Heard in commit order, barrier k
   * covers every barrier sent before it; a failed or timed-out one fails only itself and earlier ones.
   */
  #finishBarriers(ok: boolean, upTo?: number): void {
    for (const [id, flight] of this.#barriersInFlight) {
      if (upTo !== undefined && id > upTo) break;
      this.#barriersInFlight.delete(id);
      clearTimeout(flight.timer);
      for (const resolve of flight.waiters) resolve(ok);
    }
    if (this.#barrierQueue.length > 0 && !this.#barrierScheduled) this.#sendBarrier();
  }

  // ------------------------------------------------------------------ versions

  #versionOf(table?: string): number {
    if (table === undefined) return this.#anyAt;
    return Math.max(this.#allAt, this.#tableAt.get(table) ?? 0);
  }

  #ownerVersion(owner: string): number {
    return Math.max(this.#allAt, this.#activityAllAt, this.#ownerAt.get(owner) ?? 0);
  }

  #bumpActivity(why: string): void {
    this.#seq++;
    this.#activityAllAt = this.#seq;
    this.#lastPosition = undefined;
    if (this.#ownerAt.size > 0) this.#ownerAt.clear(); // every owner is at #activityAllAt or later now
    this.#logger?.debug({ why, version: this.#seq }, "projection version: every activity answer may have changed");
  }

  #bumpAll(why: string): void {
    this.#seq++;
    this.#allAt = this.#seq;
    this.#anyAt = this.#seq;
    this.#lastPosition = undefined;
    this.#ownerAt.clear();
    this.#stats.bumpsAll++;
    this.#logger?.debug({ why, version: this.#seq }, "projection version: everything may have changed");
  }

  #bumpTables(tables: readonly string[]): void {
    if (tables.length === 0) return;
    this.#seq++;
    this.#anyAt = this.#seq;
    for (const table of tables) this.#tableAt.set(table, this.#seq);
  }

  /**
   * Usable while the last heartbeat is recent. A change of state bumps nothing by itself: a late
   * heartbeat means a slow process, not lost notifications (they arrive in order on the same
   * connection, and the listener keeps applying them meanwhile); lost ones come only with a
   * reconnect, and every (re)LISTEN bumps all versions. Nothing is filled or served while unusable.
   */
  #checkUsable(): boolean {
    const usable = !this.#closed && performance.now() - this.#lastHeartbeatAt <= this.#staleMs;
    if (usable !== this.#usable) {
      this.#usable = usable;
      if (!usable) this.#logger?.warn({ staleMs: this.#staleMs }, "projection version: no heartbeat; read caches bypassed");
      else this.#logger?.info({}, "projection version: heartbeats flow; read caches on");
    }
    return usable;
  }

  // ------------------------------------------------------------------ listen

  #listen(): void {
    const listener = createPostgres({ url: this.#url, max: 1, applicationName: `${this.#appName}-listen` });
    this.#listener = listener;
    this.#listenStartedAt = performance.now();
    // postgres.js re-LISTENs by itself after a reconnect and calls onlisten again: notifications may
    // have been lost in between, so every (re)listen bumps all versions.
    const onListen = () => {
      this.#stats.listens++;
      this.#unexplained = 0;
      this.#bumpAll("listen (re)established");
    };
    const fail = (error: unknown) => this.#logger?.warn({ err: error }, "projection version: LISTEN failed; retrying");
    listener.listen(this.#liveChannel, (payload) => this.#onLive(payload), onListen).catch(fail);
    listener.listen(this.#heartbeatChannel, (payload) => this.#onHeartbeat(payload), onListen).catch(fail);
  }

  /**
   * A listener that hears nothing while polls succeed is dead (postgres.js gives up a failed re-listen):
   * start over. Failing polls send no heartbeat (it is rolled back with them: views not made yet during
   * a backfill, Postgres down), so they say nothing of the listener.
   */
  #restartListenerIfDead(): void {
    const now = performance.now();
    const unheardSince = this.#firstUnheardPollAt;
    if (unheardSince === undefined || now - unheardSince <= 2 * this.#staleMs || now - this.#listenStartedAt <= 2 * this.#staleMs) return;
    this.#firstUnheardPollAt = undefined;
    const old = this.#listener;
    this.#listener = undefined;
    void old?.end({ timeout: 0 }).catch(() => {});
    this.#logger?.warn({}, "projection version: no heartbeat on the listen connection; reconnecting it");
    this.#listen();
  }

  #onLive(payload: string): void {
    this.#stats.notifications++;
    this.#unexplained++;
    const tables = parseNotification(payload);
    if (tables === undefined) {
      this.#bumpAll("unreadable notification");
      return;
    }
    this.#bumpTables(tables);
    if (!tables.includes(ACTIVITY_TABLE) && tables.some((t) => OWNER_TABLES.has(t))) this.#bumpActivity("owner rows written without activity");
    if (tables.includes(ACTIVITY_TABLE)) {
      this.#ownersDirty = true;
      void this.#readOwners();
    }
  }

  /** Which owners got activity rows since the newest position seen: bump them (or all activity after a revert). */
  async #readOwners(): Promise<void> {
    if (this.#ownersRunning || this.#closed) return;
    this.#ownersRunning = true;
    try {
      while (this.#ownersDirty && !this.#closed) {
        this.#ownersDirty = false;
        const sql = this.#sql;
        const last = this.#lastPosition;
        const activity = sql`${sql(this.#views)}.${sql(ACTIVITY_TABLE)}`;
        const [row] = await this.#timed(sql<{ owners: string | null; newest: string | null; structure: string | null }[]>`
          select
            ${last === undefined ? sql`null` : sql`(select string_agg(distinct owner, ',') from ${activity} where position > ${last})`} as owners,
            (select max(position)::text from ${activity}) as newest,
            ${sql.unsafe(CHECKPOINT_TRIGGERS_SQL)} as structure`);
        const newest = row?.newest ?? "0";
        const structure = row?.structure ?? "";
        const reverted = last !== undefined && BigInt(newest) < BigInt(last);
        if (last === undefined || reverted || (this.#ownerStructure !== undefined && structure !== this.#ownerStructure)) {
          this.#bumpActivity(last === undefined ? "activity track starts" : "activity rows reverted (a reorg)");
        } else if (row?.owners) {
          this.#seq++;
          if (this.#ownerAt.size > MAX_TRACKED_OWNERS) this.#bumpActivity("owner map full");
          for (const owner of row.owners.split(",")) this.#ownerAt.set(owner.toLowerCase(), this.#seq);
        }
        this.#ownerStructure = structure;
        this.#lastPosition = newest;
      }
    } catch (error) {
      // Unknown what changed: every activity answer goes.
      this.#bumpActivity("owner query failed");
      this.#logger?.warn({ err: error }, "projection version: owner query failed");
    } finally {
      this.#ownersRunning = false;
      for (const done of this.#ownersWaiters.splice(0)) done();
    }
  }

  #onHeartbeat(payload: string): void {
    if (payload.startsWith("b")) {
      this.#finishBarriers(true, Number(payload.slice(1)));
      return;
    }
    const k = Number(payload);
    if (!Number.isSafeInteger(k)) return;
    const entry = this.#pending.get(k) ?? {};
    entry.heard = true;
    this.#pending.set(k, entry);
    this.#settle(k);
  }

  // ------------------------------------------------------------------ poll

  #schedule(delay: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#poll(), delay);
    this.#timer.unref();
  }

  /** Runs `query` on the tracker's connection; one that hangs (a dead peer) is given up and the connection replaced. */
  async #timed<T>(query: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${QUERY_TIMEOUT_MS} ms`)), QUERY_TIMEOUT_MS);
    });
    try {
      return await Promise.race([query, timeout]);
    } catch (error) {
      if (timer !== undefined && !this.#closed && (error as Error).message.startsWith("no answer")) {
        const old = this.#sql;
        this.#sql = createPostgres({ url: this.#url, max: 1, applicationName: this.#appName });
        void old.end({ timeout: 0 }).catch(() => {});
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #poll(): Promise<void> {
    const k = ++this.#pollSeq;
    try {
      const sql = this.#sql;
      // One statement: the heartbeat (delivered after this statement's commit), the views' checkpoint,
      // the checkpoint view's identity (re-created views: a restart or a reindex) and the trigger OIDs
      // on every _ponder_checkpoint table (re-created by each reorg).
      const [row] = await this.#timed(sql<{ checkpoint: string | null; structure: string | null }[]>`
        select
          pg_notify(${this.#heartbeatChannel}, ${String(k)}) as heartbeat,
          (select string_agg(c::text, ';' order by c::text) from ${sql(this.#views)}."_ponder_checkpoint" c) as checkpoint,
          (select c.oid::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = ${this.#views} and c.relname = '_ponder_checkpoint')
          || '/' || ${sql.unsafe(CHECKPOINT_TRIGGERS_SQL)} as structure`);
      this.#stats.polls++;
      this.#firstUnheardPollAt ??= performance.now();
      const entry = this.#pending.get(k) ?? {};
      entry.fingerprint = { checkpoint: row?.checkpoint ?? "", structure: row?.structure ?? "" };
      this.#pending.set(k, entry);
      this.#settle(k);
    } catch (error) {
      this.#stats.pollErrors++;
      this.#pending.delete(k);
      this.#logger?.debug({ err: error }, "projection version: poll failed");
    }
    this.#checkUsable();
    this.#restartListenerIfDead();
    this.#schedule(this.#pollMs);
  }

  /** Poll k is complete once both its result and its heartbeat are in: compare, and mark the tracker alive. */
  #settle(k: number): void {
    const entry = this.#pending.get(k);
    if (!entry?.heard || !entry.fingerprint) return;
    for (const key of this.#pending.keys()) if (key <= k) this.#pending.delete(key);
    this.#stats.heartbeats++;
    const next = entry.fingerprint;
    const last = this.#last;
    this.#last = next;
    if (last !== undefined) {
      if (next.structure !== last.structure) this.#bumpAll("views re-created or a reorg (triggers re-created)");
      else if (next.checkpoint !== last.checkpoint) {
        if (this.#unexplained === 0) this.#bumpAll("checkpoint moved without a notification (backfill)");
        this.#unexplained = 0;
      }
    }
    this.#lastHeartbeatAt = performance.now();
    this.#firstUnheardPollAt = undefined;
    this.#checkUsable();
  }
}
