// Answers of read routes kept in process memory, each tagged with the projection version it was read
// at (adapters/db/projection-version.ts). An entry is served only while the tracker is usable, its version
// is still the current one and it is younger than its route's max age; otherwise the route reads the
// database again. Bounded by entry count and by size (the answer's serialized length).
import { LRUCache } from "lru-cache";
import type { Counter } from "prom-client";
import { CursorCache } from "../adapters/db/cursors.js";
import type { VersionSource } from "../adapters/db/projection-version.js";

/** An answer as stored: the value, the version it was read at, when it was filled (ms). */
export type CacheEntry<T> = { value: T; version: number; filledAt: number };

/**
 * The version rule (pure): an entry is served only when the tracker is usable (`current` defined),
 * the entry was filled at the current version, and it is younger than `maxAgeMs`.
 */
export function isServable(entry: Pick<CacheEntry<unknown>, "version" | "filledAt">, current: number | undefined, nowMs: number, maxAgeMs: number): boolean {
  return current !== undefined && entry.version === current && nowMs - entry.filledAt < maxAgeMs && nowMs >= entry.filledAt;
}

/** Key of an activity poll's answer: owner (lowercase), the cursor given, the limit. */
export const activityKey = (owner: string, cursor: string, limit: number): string => `${owner.toLowerCase()}\n${cursor}\n${limit}`;

/** Key of an account's answer: owner (lowercase), closedDays. */
export const accountKey = (owner: string, closedDays: number): string => `${owner.toLowerCase()}\n${closedDays}`;

export type AnswerCacheOptions<T> = {
  /** Most entries (≥ 1). */
  maxEntries: number;
  /** Most bytes over all entries, as measured by `sizeOf`. */
  maxBytes: number;
  /** An entry older than this is never served (belt and braces beside the version). */
  maxAgeMs: number;
  /** Size of a value in bytes (≥ 1). */
  sizeOf: (value: T) => number;
};

export class AnswerCache<T extends object> {
  readonly #lru: LRUCache<string, CacheEntry<T>>;
  readonly #maxAgeMs: number;

  constructor(options: AnswerCacheOptions<T>) {
    this.#maxAgeMs = options.maxAgeMs;
    this.#lru = new LRUCache<string, CacheEntry<T>>({
      max: Math.max(1, options.maxEntries),
      maxSize: Math.max(1, options.maxBytes),
      // lru-cache refuses an entry larger than maxSize by itself (it is then simply not stored).
      sizeCalculation: (entry) => Math.max(1, options.sizeOf(entry.value)),
    });
  }

  /** The value under `key` when it is servable at version `current` (undefined: tracker unusable). */
  get(key: string, current: number | undefined, nowMs = Date.now()): T | undefined {
    return this.entry(key, current, nowMs)?.value;
  }

  /** The entry under `key` when it is servable at version `current`; check it again later with `holds`. */
  entry(key: string, current: number | undefined, nowMs = Date.now()): CacheEntry<T> | undefined {
    const entry = this.#lru.get(key);
    if (!entry) return undefined;
    if (isServable(entry, current, nowMs, this.#maxAgeMs)) return entry;
    // Stale for good: versions only grow and time only passes.
    if (current !== undefined) this.#lru.delete(key);
    return undefined;
  }

  /** Whether an entry found before is still servable at version `current` (no second lookup). */
  holds(entry: CacheEntry<T>, current: number | undefined, nowMs = Date.now()): boolean {
    return isServable(entry, current, nowMs, this.#maxAgeMs);
  }

  /** Stores `value` read at `version` (taken BEFORE the read that produced it). */
  set(key: string, value: T, version: number, nowMs = Date.now()): void {
    this.#lru.set(key, { value, version, filledAt: nowMs });
  }

  get size(): number {
    return this.#lru.size;
  }

  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  clear(): void {
    this.#lru.clear();
  }
}

/** A cached activity answer: its JSON body split around `now` (re-stamped on every answer). */
export type ActivityEntry = {
  /** The answer has something (changes, more, reorged): a long poll does not wait. */
  news: boolean;
  /** The body up to and including `"now":"`. */
  head: string;
  /** The body from the closing quote of `now` on. */
  tail: string;
  /** When the polled cursor was issued (ms): the entry is not served past the cursor's expiry. */
  sinceMs: number;
  /** The answer's cursor is the polled one (a no-change poll): not served once that cursor is a day old. */
  sameCursor: boolean;
};

/**
 * A cached account answer: its JSON body split around the values of `asOf` and `closedSince`
 * (re-stamped on every answer), and until when its lists hold (an ended item ages out then).
 */
export type AccountEntry = {
  /** Up to and including `"asOf":"`. */
  head: string;
  /** From the closing quote of `asOf` up to and including `"closedSince":"`. */
  mid: string;
  /** From the closing quote of `closedSince` on. */
  tail: string;
  /** Not served from this time on (ms): an ended item it lists falls out of the `closedDays` window. */
  listedUntilMs: number;
  /** The latest chain time (ms) behind a figure it values: `asOf` is never earlier (answerTime). */
  valuedUntilMs: number;
};

export type CacheResult = "hit" | "miss" | "bypass";

/** What the read routes share in one API process: the tracker, the two answer caches, the cursor rows. */
export type ReadCache = {
  version: VersionSource;
  /** Wait for a barrier (VersionSource.barrier) before serving from memory: exact against commits visible before the request. */
  strict: boolean;
  activity: AnswerCache<ActivityEntry>;
  accounts: AnswerCache<AccountEntry>;
  /** Activity cursor rows (immutable once stored). */
  cursors: CursorCache;
  /** Counts answers per route and result (Prometheus `api_read_cache_total`). */
  count(route: "accounts" | "activity", result: CacheResult): void;
};

/**
 * The cached value under `key` when it may answer now: the tracker usable, the entry at the current
 * version (`version()` is the caller's snapshot, e.g. per owner), and, when strict, still so after a
 * barrier (every commit visible before this call has been heard). `result` is what to count.
 */
export async function cachedAnswer<T extends object>(
  readCache: ReadCache,
  cache: AnswerCache<T>,
  key: string,
  version: () => number | undefined,
  /** Activity: first wait up to this long for a pending per-owner lookup (a block just indexed). */
  ownersWaitMs?: number,
): Promise<{ value?: T; result: CacheResult }> {
  // Without the wait, every poll arriving while a block's owners are being read would go to the
  // database at once (a stampede per indexed block under load).
  if (ownersWaitMs !== undefined) await readCache.version.ownersSettled?.(ownersWaitMs);
  const before = version();
  if (before === undefined) return { result: "bypass" };
  const entry = cache.entry(key, before);
  if (!entry) return { result: "miss" };
  if (!readCache.strict) return { value: entry.value, result: "hit" };
  if (!(await readCache.version.barrier())) return { result: "bypass" };
  const now = version();
  if (now === undefined) return { result: "bypass" };
  return cache.holds(entry, now) ? { value: entry.value, result: "hit" } : { result: "miss" };
}

/** Belt and braces only (invalidation is by version): long enough that polling agents rarely miss on it. */
export const DEFAULT_ACTIVITY_MAX_AGE_MS = 120_000;
/** Belt and braces only: invalidation is per owner by version, and an entry ends when an ended item it lists ages out. */
export const DEFAULT_ACCOUNT_MAX_AGE_MS = 600_000;

export type CreateReadCacheParameters = {
  version: VersionSource;
  /** Entries per route (≥ 1). */
  entries: number;
  /** Bytes per route. */
  maxBytes: number;
  activityMaxAgeMs?: number;
  accountMaxAgeMs?: number;
  /** Barrier before every hit (default true). */
  strict?: boolean;
  /** The counter of hits/misses (api/middleware/metrics.ts `readCacheCounter`). */
  counter?: Counter<"route" | "result">;
};

/** `count` with the labelled children kept: prom-client otherwise hashes the label object on every answer. */
function countBy(counter: Counter<"route" | "result"> | undefined): ReadCache["count"] {
  if (!counter) return () => {};
  const children = new Map<string, { inc: () => void }>();
  return (route, result) => {
    const key = `${route} ${result}`;
    let child = children.get(key);
    if (!child) children.set(key, (child = counter.labels(route, result)));
    child.inc();
  };
}

export function createReadCache(p: CreateReadCacheParameters): ReadCache {
  return {
    version: p.version,
    strict: p.strict ?? true,
    activity: new AnswerCache<ActivityEntry>({
      maxEntries: p.entries,
      maxBytes: p.maxBytes,
      maxAgeMs: p.activityMaxAgeMs ?? DEFAULT_ACTIVITY_MAX_AGE_MS,
      sizeOf: (e) => e.head.length + e.tail.length + 64,
    }),
    accounts: new AnswerCache<AccountEntry>({
      maxEntries: p.entries,
      maxBytes: p.maxBytes,
      maxAgeMs: p.accountMaxAgeMs ?? DEFAULT_ACCOUNT_MAX_AGE_MS,
      sizeOf: (e) => e.head.length + e.mid.length + e.tail.length + 48,
    }),
    cursors: new CursorCache(p.entries),
    count: countBy(p.counter),
  };
}
