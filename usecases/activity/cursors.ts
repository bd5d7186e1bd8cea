// Activity cursors: an owner's position in the activity feed, stored in the API's schema
// (`activity_cursor`) and usable for 14 days.
//
// - A cursor is an opaque id: 192 bits, base64url (32 characters). A baseline cursor is derived
//   from the owner, its position and trail and the day (SHA-256), so repeated baselines for an owner
//   at the same position reuse one row a day instead of growing the table at a client's full rate
//   (anyone may take an owner's baseline, so a derivable baseline id gives away nothing); the cursor answered to a poll is derived from the polled cursor's id and the new position
//   (SHA-256), so a retried poll answers the same changes AND the same cursor (idempotent). A poll
//   with nothing new (no change, no reorg) answers the cursor it was given, so an agent that polls
//   with its latest cursor writes no row and asks the same question each time (answers can then
//   be cached: usecases/activity/feed.ts); once that cursor is a day old the poll issues the derived
//   one instead, created now, so a polling agent never meets the 14-day expiry. Only someone who
//   holds the parent cursor can derive it.
// - A cursor is bound to its owner: another owner's cursor answers like an unknown one.
// - Reorgs: a cursor remembers the block of its position and the trail of recent blocks (within
//   the indexer's reorg window) whose changes were given. A poll first checks the trail against
//   the log: when the newest given block is no longer canonical, the answer is `reorged: true` and
//   starts after the last common point (the newest given block still canonical, or the start of
//   the reorg window), so the agent drops what it holds after `after` and applies the changes.
//   The check reads the log as it is at that moment. Ponder can revert a block that stays
//   canonical and re-index it in its next transaction (seen on the devnet after evm_revert: it
//   reverted to the snapshot block's parent); a poll in between finds that block missing and
//   rewinds further. That is safe: what the agent drops and is given again is identical.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { ActivityCursor, CursorStore } from "../../adapters/db/cursors.js";
import type { Projections } from "../../adapters/db/projections.js";
import { blockOfPosition, lastPositionOf } from "../../domain/activity-position.js";
import { readChangesAfter, readOwnerBlocks, readOwnerHead, type ActivityRow, type BlockRef } from "../../adapters/db/reads/activity.js";
import { DAY_MS } from "../../domain/price.js";
import { MAX_CHANGES_PER_CALL } from "../../contract/accounts.js";

/**
 * Blocks behind a given block that a reorg can still replace. Ponder treats blocks older than its
 * finality depth as final (30 blocks on chains it does not know, such as 4663) and cannot revert
 * them; 64 leaves a margin.
 */
export const REORG_WINDOW_BLOCKS = 64n;

/**
 * A poll with no change answers the cursor it was given, unless that cursor is older than this: then
 * it issues the derived one (created now), so an agent that keeps polling never meets the expiry.
 */
export const CURSOR_RENEW_MS = DAY_MS;

/**
 * The id of the baseline cursor of `owner` at this position and trail, the same all through one
 * renewal period (a day, UTC), so a baseline never hands out a cursor more than a day old.
 */
export function baselineCursorId(owner: string, position: bigint, trail: readonly BlockRef[], now: Date): string {
  const period = Math.floor(now.getTime() / CURSOR_RENEW_MS);
  const state = ["baseline", owner.toLowerCase(), period.toString(), position.toString(), ...trail.map((b) => `${b.number}:${b.hash.toLowerCase()}`)].join(
    "\n",
  );
  return createHash("sha256").update(state).digest().subarray(0, 24).toString("base64url");
}

/** The id of the cursor that follows `parentId` at this position and trail (deterministic). */
export function childCursorId(parentId: string, position: bigint, trail: readonly BlockRef[]): string {
  const state = [parentId, position.toString(), ...trail.map((b) => `${b.number}:${b.hash}`)].join("\n");
  return createHash("sha256").update(state).digest().subarray(0, 24).toString("base64url");
}

// ---------------------------------------------------------------- the pure parts

/**
 * Merges the blocks of newly given changes (any order) into a trail, newest first, one entry per
 * block, keeping only blocks a reorg can still replace (within REORG_WINDOW_BLOCKS of the newest).
 */
export function extendTrail(trail: readonly BlockRef[], given: readonly BlockRef[]): BlockRef[] {
  const byNumber = new Map<bigint, BlockRef>();
  for (const block of [...trail, ...given]) byNumber.set(block.number, { number: block.number, hash: block.hash.toLowerCase() });
  const sorted = [...byNumber.values()].sort((a, b) => (a.number === b.number ? 0 : a.number > b.number ? -1 : 1));
  const newest = sorted[0];
  return newest ? sorted.filter((b) => b.number > newest.number - REORG_WINDOW_BLOCKS) : [];
}

export type ResumePoint = {
  /** Answer the owner's changes after this position. */
  after: bigint;
  /** The trail still canonical (newest first). */
  trail: BlockRef[];
  /** True when changes already given were reorged away. */
  reorged: boolean;
};

/**
 * Where a poll resumes, given the cursor and the owner's blocks the log holds now over the
 * cursor's trail. A reorg replaces a suffix of the chain, so the trail's canonical entries are
 * its oldest ones:
 * - newest entry canonical (or no trail): no reorg, resume at the cursor's position;
 * - else the newest canonical entry is the last common block: resume after it;
 * - none canonical: resume at the start of the reorg window before the newest entry (every block
 *   before it is final; the trail covers every block in the window whose changes were given).
 */
export function resumePoint(cursor: Pick<ActivityCursor, "position" | "trail">, canonical: readonly BlockRef[]): ResumePoint {
  const newest = cursor.trail[0];
  if (!newest) return { after: cursor.position, trail: [], reorged: false };
  const held = new Set(canonical.map((b) => `${b.number}:${b.hash.toLowerCase()}`));
  const index = cursor.trail.findIndex((b) => held.has(`${b.number}:${b.hash.toLowerCase()}`));
  if (index === 0) return { after: cursor.position, trail: [...cursor.trail], reorged: false };
  if (index > 0) return { after: lastPositionOf(cursor.trail[index]!.number), trail: cursor.trail.slice(index), reorged: true };
  const windowStart = newest.number - REORG_WINDOW_BLOCKS;
  return { after: windowStart < 0n ? 0n : lastPositionOf(windowStart), trail: [], reorged: true };
}

/** True when a poll answered nothing new: no change, no reorg, and the cursor's position and trail stand. */
export function isUnchanged(
  parent: Pick<ActivityCursor, "position" | "trail">,
  next: { position: bigint; trail: readonly BlockRef[]; reorged: boolean; changes: number },
): boolean {
  if (next.reorged || next.changes > 0 || next.position !== parent.position || next.trail.length !== parent.trail.length) return false;
  return next.trail.every((b, i) => b.number === parent.trail[i]!.number && b.hash.toLowerCase() === parent.trail[i]!.hash.toLowerCase());
}

// ---------------------------------------------------------------- the feed

export type ActivityAnswer = {
  cursor: string;
  /** When the polled cursor was issued (the baseline: now). */
  since: Date;
  now: Date;
  /** The changes start after this position (the cursor's, or the last common point after a reorg). */
  after: bigint;
  changes: ActivityRow[];
  /** More changes wait: call again at once with the new cursor. */
  more: boolean;
  reorged: boolean;
};

export type PollActivityParameters = {
  /** The process's cursors (adapters/db/cursors.ts). */
  cursors: CursorStore;
  reads: Kysely<Projections>;
  owner: string;
  now: Date;
  /** Omit for a baseline. */
  cursorId?: string;
  limit?: number;
};

export class CursorNotFoundError extends Error {
  override name = "CursorNotFoundError";
}

/**
 * A baseline (no cursor): no changes, and a cursor at the owner's newest change. A poll: the
 * owner's changes after the cursor (or after the last common point, when a reorg took changes
 * already given), at most `limit`, and the cursor after the last one answered.
 * Throws CursorNotFoundError for an unknown, foreign or expired cursor.
 */
export async function pollActivity(p: PollActivityParameters): Promise<ActivityAnswer> {
  const owner = p.owner.toLowerCase();
  const limit = Math.max(1, Math.min(p.limit ?? MAX_CHANGES_PER_CALL, MAX_CHANGES_PER_CALL));

  if (p.cursorId === undefined) {
    const head = await readOwnerHead(p.reads, owner);
    const position = head ? BigInt(head.position) : 0n;
    const trail = head ? await readOwnerBlocks(p.reads, owner, blockOfPosition(position) - REORG_WINDOW_BLOCKS + 1n, blockOfPosition(position)) : [];
    const baselineTrail = extendTrail(trail, []);
    const id = baselineCursorId(owner, position, baselineTrail, p.now);
    const cursor = await p.cursors.save({ id, owner, position, trail: baselineTrail }, p.now);
    return { cursor: cursor.id, since: cursor.createdAt, now: p.now, after: position, changes: [], more: false, reorged: false };
  }

  // The cursor, the trail check and the changes after the cursor's position are read together: without
  // a reorg (the usual case) the poll resumes at that position; after one, the changes are read again
  // from the last common point.
  const read = await p.cursors.readPollAt(p.cursorId, owner, p.now, limit + 1);
  if (!read) throw new CursorNotFoundError("unknown or expired cursor");
  const { cursor: parent, blocks: canonical, changes: rowsAtCursor } = read;
  const resume = resumePoint(parent, canonical);

  const rows = !resume.reorged && resume.after === parent.position ? rowsAtCursor : await readChangesAfter(p.reads, owner, resume.after, limit + 1);
  const more = rows.length > limit;
  const changes = more ? rows.slice(0, limit) : rows;
  const last = changes[changes.length - 1];
  const position = last ? BigInt(last.position) : resume.after;
  const trail = extendTrail(
    resume.trail,
    changes.map((row) => ({ number: BigInt(row.blockNumber), hash: row.blockHash })),
  );
  // Nothing new and no reorg: the same cursor again (no row written), unless it is old enough to renew.
  if (
    isUnchanged(parent, { position, trail, reorged: resume.reorged, changes: changes.length }) &&
    p.now.getTime() - parent.createdAt.getTime() < CURSOR_RENEW_MS
  ) {
    return { cursor: parent.id, since: parent.createdAt, now: p.now, after: resume.after, changes, more, reorged: false };
  }
  const childId = childCursorId(parent.id, position, trail);
  await p.cursors.storeDerived({ id: childId, owner, position, trail }, p.now);
  return { cursor: childId, since: parent.createdAt, now: p.now, after: resume.after, changes, more, reorged: resume.reorged };
}
