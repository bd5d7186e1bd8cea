// Reads of the indexer's activity log (the `activity` projection): an owner's changes after a
// position, the owner's head, and which of the owner's blocks are still canonical.
//
// Positions strictly increase along the chain (domain/activity-position.ts), so the changes of block b
// lie in [b * 1e6, (b + 1) * 1e6).
// Owners are stored lowercase by the indexer. Every query here uses the (owner, position) key.
import type { Kysely } from "kysely";
import { lastPositionOf, POSITIONS_PER_BLOCK } from "../../../domain/activity-position.js";
import type { Projections } from "../projections.js";

export type ActivityRow = Projections["activity"];

/** A block by number and hash, as the activity log saw it. */
export type BlockRef = { number: bigint; hash: string };

/** The owner's newest change, or undefined when it has none. */
export async function readOwnerHead(reads: Kysely<Projections>, owner: string): Promise<ActivityRow | undefined> {
  return reads
    .selectFrom("activity")
    .selectAll()
    .where("owner", "=", owner.toLowerCase() as `0x${string}`)
    .orderBy("position", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Up to `limit` of the owner's changes after `after`, in position order. */
export async function readChangesAfter(reads: Kysely<Projections>, owner: string, after: bigint, limit: number): Promise<ActivityRow[]> {
  return reads
    .selectFrom("activity")
    .selectAll()
    .where("owner", "=", owner.toLowerCase() as `0x${string}`)
    .where("position", ">", after)
    .orderBy("position", "asc")
    .limit(limit)
    .execute();
}

/**
 * The distinct blocks (number and hash) of the owner's changes in blocks `fromBlock`..`toBlock`,
 * newest first: what the log holds now. A block given earlier with another hash, or missing, was
 * reorged away.
 */
export async function readOwnerBlocks(reads: Kysely<Projections>, owner: string, fromBlock: bigint, toBlock: bigint): Promise<BlockRef[]> {
  if (toBlock < fromBlock) return [];
  const rows = await reads
    .selectFrom("activity")
    .select(["blockNumber", "blockHash"])
    .distinct()
    .where("owner", "=", owner.toLowerCase() as `0x${string}`)
    .where("position", ">=", fromBlock * POSITIONS_PER_BLOCK)
    .where("position", "<=", lastPositionOf(toBlock))
    .execute();
  return rows
    .map((row) => ({ number: BigInt(row.blockNumber), hash: row.blockHash.toLowerCase() }))
    .sort((a, b) => (a.number === b.number ? 0 : a.number > b.number ? -1 : 1));
}
