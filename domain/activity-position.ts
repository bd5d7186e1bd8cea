// Where a change sits in the activity log: a position that strictly increases along the chain (block,
// log index, row within the log). The indexer writes it (src/activity.ts) and the reads and cursors
// count on it (adapters/db/reads/activity.ts): one rule for both.

/** Positions per block: a log has up to 10 rows, a block up to 100,000 logs. */
export const POSITIONS_PER_BLOCK = 1_000_000n;

/** Position of the `row`-th change of a log. */
export const activityPosition = (blockNumber: bigint, logIndex: number, row: number): bigint =>
  blockNumber * POSITIONS_PER_BLOCK + BigInt(logIndex) * 10n + BigInt(row);

/** The block a position lies in. */
export const blockOfPosition = (position: bigint): bigint => position / POSITIONS_PER_BLOCK;

/** The last position of block `block` (every change of blocks ≤ `block` is at or below it). */
export const lastPositionOf = (block: bigint): bigint => (block + 1n) * POSITIONS_PER_BLOCK - 1n;
