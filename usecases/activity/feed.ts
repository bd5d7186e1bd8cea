// The activity feed as answered (GET .../activity): changes formatted, each answer serialized once
// with `now` left open (a cached answer is re-stamped per request), and the read cache's protocol
// and the long poll around the poll of usecases/activity/cursors.ts.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { ACTIVITY_TABLE } from "../../adapters/db/projection-version.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { ActivityRow } from "../../adapters/db/reads/activity.js";
import type { Logger } from "../../adapters/logger.js";
import { checksum, isoTime } from "../../domain/format.js";
import type { ActivityChange } from "../../contract/accounts.js";
import { answerBody } from "../answer-body.js";
import { activityKey, cachedAnswer, type ActivityEntry, type ReadCache } from "../read-cache.js";
import { CursorStore } from "../../adapters/db/cursors.js";
import { CURSOR_TTL_MS } from "../../contract/accounts.js";
import { CURSOR_RENEW_MS, pollActivity, type ActivityAnswer } from "./cursors.js";
import { longPoll } from "./long-poll.js";
import { ActivityWaker } from "./waker.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const checksumIfAddress = <T>(value: T): T | `0x${string}` => (typeof value === "string" && ADDRESS.test(value) ? checksum(value) : value);

/** A change as answered: checksummed addresses, the block's time in ISO 8601. */
export function formatChange(row: ActivityRow): z.infer<typeof ActivityChange> {
  return {
    id: row.position.toString(),
    kind: row.kind,
    subject: checksumIfAddress(row.subject),
    contract: checksum(row.contract),
    data: Object.fromEntries(Object.entries(row.data ?? {}).map(([key, value]) => [key, checksumIfAddress(value)])),
    txHash: row.txHash,
    block: Number(row.blockNumber),
    blockHash: row.blockHash,
    logIndex: row.logIndex,
    time: isoTime(row.timestamp),
  };
}

/** True when a poll has something to answer now (a long poll then does not wait). */
const hasNews = (answer: ActivityAnswer) => answer.changes.length > 0 || answer.more || answer.reorged;

/** Stands for `now` while an answer is serialized; the body is split around it and `now` re-stamped. */
const NOW_MARK = "\u0001now\u0001";
const NOW_FIELD = `"now":${JSON.stringify(NOW_MARK)}`;
/** How long a poll waits for the owners of a just-indexed block to be known before reading the database. */
const OWNERS_WAIT_MS = 250;

/** An answer as its JSON body `{data}` split around `now` (the envelope's serialization, bigints as strings). */
export function activityEntry(answer: ActivityAnswer, polledCursor: string | undefined): ActivityEntry {
  const json = answerBody({
    cursor: answer.cursor,
    since: answer.since.toISOString(),
    now: NOW_MARK,
    after: answer.after.toString(),
    changes: answer.changes.map(formatChange),
    more: answer.more,
    reorged: answer.reorged,
  });
  // `now` comes third, after the cursor (base64url) and `since` (ISO): its first match is the field.
  const at = json.indexOf(NOW_FIELD);
  return {
    head: `${json.slice(0, at)}"now":"`,
    tail: json.slice(at + NOW_FIELD.length - 1),
    news: hasNews(answer),
    sinceMs: answer.since.getTime(),
    sameCursor: answer.cursor === polledCursor,
  };
}

/** The answer's body, stamped `now`. */
export const activityBody = (entry: ActivityEntry, now: Date) => entry.head + now.toISOString() + entry.tail;

/** A cached answer may answer at `now` only while its cursor is live (and, for the same cursor, not due for renewal). */
const entryHoldsAt = (entry: ActivityEntry, now: Date) =>
  now.getTime() - entry.sinceMs < (entry.sameCursor ? Math.min(CURSOR_RENEW_MS, CURSOR_TTL_MS) : CURSOR_TTL_MS);

export type ActivityFeedDeps = {
  db: Kysely<Database>;
  reads: Kysely<Projections>;
  now: () => Date;
  logger?: Logger;
  /** Wakes long polls (default: one made here from `reads`). */
  activityWaker?: ActivityWaker;
  /** Absent: every poll reads the database. */
  readCache?: ReadCache;
};

export type ActivityRequest = {
  owner: string;
  /** Omit for a baseline. */
  cursor?: string;
  limit: number;
  /** With a cursor: wait up to this long for a change (0: answer at once). */
  waitMs: number;
  /** The request's: a long poll stops waiting when it aborts. */
  signal?: AbortSignal;
};

/**
 * The feed of one app: answers a request with its JSON body `{data}`, from the read cache when an
 * answer there still holds, else from the database (after waiting for news, for a long poll).
 * Throws CursorNotFoundError for an unknown, foreign or expired cursor.
 */
export function activityFeed(deps: ActivityFeedDeps): (request: ActivityRequest) => Promise<string> {
  // One waker per feed (one feed per app, one app per API process): it serves every waiting request.
  const waker = deps.activityWaker ?? new ActivityWaker({ reads: deps.reads, logger: deps.logger });
  const cache: ReadCache | undefined = deps.readCache;
  const cursors = new CursorStore({ db: deps.db, reads: deps.reads, cache: cache?.cursors });

  /**
   * One read of the feed as a body. With the cache: the version is taken BEFORE the read, and the
   * answer is stored under it, so a commit during or after the read invalidates it.
   */
  const read = async (owner: string, cursor: string | undefined, limit: number): Promise<ActivityEntry> => {
    const version = cursor !== undefined ? cache?.version.snapshot(ACTIVITY_TABLE, owner.toLowerCase()) : undefined;
    const answer = await pollActivity({ cursors, reads: deps.reads, owner, cursorId: cursor, limit, now: deps.now() });
    const entry = activityEntry(answer, cursor);
    if (cache && cursor !== undefined && version !== undefined) cache.activity.set(activityKey(owner, cursor, limit), entry, version);
    return entry;
  };

  return async ({ owner, cursor, limit, waitMs, signal }) => {
    if (cursor !== undefined && cache) {
      // A long poll reads the database (its waits follow the waker, which reads it too).
      const found =
        waitMs > 0
          ? { result: "bypass" as const }
          : await cachedAnswer(
              cache,
              cache.activity,
              activityKey(owner, cursor, limit),
              () => cache.version.snapshot(ACTIVITY_TABLE, owner.toLowerCase()),
              OWNERS_WAIT_MS,
            );
      const hit = found.value && entryHoldsAt(found.value, deps.now()) ? found.value : undefined;
      cache.count("activity", hit ? "hit" : found.result === "hit" ? "miss" : found.result);
      if (hit) return activityBody(hit, deps.now());
    }
    const entry =
      cursor !== undefined && waitMs > 0 ? await longPoll(waker, owner, waitMs, signal, () => read(owner, cursor, limit)) : await read(owner, cursor, limit);
    return activityBody(entry, deps.now());
  };
}
