// A stand-in for the indexer's activity view, for tests that write their own activity log: the schema
// and its `activity` table (the view's columns), a block or transaction hash on a branch, and one change.
import type postgres from "postgres";

/** `create schema <views>` and `<views>.activity`, shaped like the indexer's view. */
export async function createActivityView(sql: postgres.Sql, views: string): Promise<void> {
  await sql`create schema ${sql(views)}`;
  await sql`create table ${sql(views)}.activity (
    owner text not null, position numeric(78,0) not null, kind text not null, subject text not null, contract text not null,
    data json not null, tx_hash text not null, block_number numeric(78,0) not null, block_hash text not null,
    log_index integer not null, timestamp integer not null, primary key (owner, position))`;
}

/** A 32-byte hash on `branch` (a reorg's other branch gets other hashes): the letter twice, then `n` in hex. */
export const branchHash = (n: number, branch: string) => `0x${branch.repeat(2)}${n.toString(16).padStart(62, "0")}`;

export type ActivityChange = { block: number; logIndex: number; owner: string; branch: string; kind: string; vault: string; data: Record<string, unknown> };

/** Inserts one change of `owner` at (block, logIndex) on `branch`, about `vault`; answers its position. */
export async function insertChange(sql: postgres.Sql, views: string, c: ActivityChange): Promise<string> {
  const position = BigInt(c.block) * 1_000_000n + BigInt(c.logIndex) * 10n;
  await sql`insert into ${sql(views)}.activity ${sql({
    owner: c.owner.toLowerCase(),
    position: position.toString(),
    kind: c.kind,
    subject: c.vault,
    contract: c.vault,
    data: sql.json(c.data as postgres.JSONValue),
    tx_hash: branchHash(c.block * 100 + c.logIndex, c.branch),
    block_number: String(c.block),
    block_hash: branchHash(c.block, c.branch),
    log_index: c.logIndex,
    timestamp: 1_700_000_000 + c.block * 2,
  })}`;
  return position.toString();
}
