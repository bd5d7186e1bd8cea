// Reads of the indexer's activity log (the `activity` projection): an owner's changes after a
// position, the owner's head, and which of the owner's blocks are still canonical.
//
// Positions strictly increase along the chain (domain/activity-position.ts), so the changes of block b
// lie in [b * 1e6, (b + 1) * 1e6).
// Owners are stored lowercase by the indexer. Every query here uses the (owner, position) key.
import type { Kysely } from "kysely";
import { lastPositionOf, POSITIONS_PER_BLOCK } from "../../../domain/activity-position.js";
import type { Projections } from "../projections.js";
import { runBatched, type StatementText } from "./statement.js";

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

/** A change as the poll statement answers it (JSON: the big integers as decimal strings). */
type WireChange = Omit<ActivityRow, "position" | "blockNumber"> & { position: string; blockNumber: string };

/** A change as a JSON object, built by Postgres from the activity row `c`. */
export const CHANGE_JSON = `json_build_object(
       'owner', c.owner, 'position', c.position::text, 'kind', c.kind, 'subject', c.subject, 'contract', c.contract, 'data', c.data,
       'txHash', c.tx_hash, 'blockNumber', c.block_number::text, 'blockHash', c.block_hash, 'logIndex', c.log_index, 'timestamp', c.timestamp)`;

/** The distinct blocks (JSON) of `a`'s rows, as the trail check reads them. */
export const BLOCKS_JSON = "coalesce(json_agg(json_build_object('number', b.block_number::text, 'hash', b.block_hash)), '[]')";

// Polls, one round trip for all those asked at the same moment (runBatched): entries `{owner, after, lim,
// trail_from, trail_to}` (positions as decimal strings; the trail's bounds null when there is none); per
// entry, the owner's blocks over the trail (the reorg check) and up to `lim` changes after `after`, as JSON
// texts assembled by Postgres. Both halves read the (owner, position) key.
const pollStatement: StatementText = (t) => `
select o.i,
  (select ${BLOCKS_JSON}
     from (select distinct a.block_number, a.block_hash from ${t("activity")} a
           where o.trail_from is not null and a.owner = o.owner and a.position >= o.trail_from and a.position <= o.trail_to) b)::text as blocks,
  (select coalesce(json_agg(${CHANGE_JSON} order by c.position), '[]')
     from (select * from ${t("activity")} a where a.owner = o.owner and a.position > o.after order by a.position limit o.lim) c)::text as changes
from jsonb_to_recordset($1::text::jsonb) as o(i int, owner text, after numeric, lim int, trail_from numeric, trail_to numeric)`;

/** The poll statement's two JSON texts, parsed: blocks newest first, changes in position order. */
export function parsePoll(row: { blocks: string; changes: string } | undefined): { blocks: BlockRef[]; changes: ActivityRow[] } {
  if (!row) return { blocks: [], changes: [] };
  const blocks = (JSON.parse(row.blocks) as { number: string; hash: string }[])
    .map((b) => ({ number: BigInt(b.number), hash: b.hash.toLowerCase() }))
    .sort((a, b) => (a.number === b.number ? 0 : a.number > b.number ? -1 : 1));
  const changes = (JSON.parse(row.changes) as WireChange[]).map((c) => ({ ...c, position: BigInt(c.position), blockNumber: BigInt(c.blockNumber) }));
  return { blocks, changes };
}

/**
 * What a poll reads, in one statement: the owner's blocks in `trail` (fromBlock..toBlock, as
 * readOwnerBlocks answers them; none when `trail` is undefined) and up to `limit` changes after `after`
 * (as readChangesAfter).
 */
export async function readPoll(
  reads: Kysely<Projections>,
  owner: string,
  after: bigint,
  limit: number,
  trail: { fromBlock: bigint; toBlock: bigint } | undefined,
): Promise<{ blocks: BlockRef[]; changes: ActivityRow[] }> {
  const within = trail && trail.toBlock >= trail.fromBlock ? trail : undefined;
  return parsePoll(
    await runBatched<{ blocks: string; changes: string }>(reads, pollStatement, {
      owner: owner.toLowerCase(),
      after: after.toString(),
      lim: limit,
      trail_from: within ? (within.fromBlock * POSITIONS_PER_BLOCK).toString() : null,
      trail_to: within ? lastPositionOf(within.toBlock).toString() : null,
    }),
  );
}
