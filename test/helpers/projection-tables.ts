// Projection tables as ponder.schema.ts declares them (drizzle's table config: columns, keys, indexes), for
// tests and benchmarks that write the indexer's rows themselves: the same shape the indexer makes.
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import * as schema from "../../ponder.schema.js";

/** The projections the grading pass reads. */
export const GRADING_TABLES = [
  schema.executedCall,
  schema.activity,
  schema.limitOrder,
  schema.depositRequest,
  schema.withdrawalRequest,
  schema.poolSwap,
  schema.vaultSnapshot,
  schema.token,
] as unknown as PgTable[];

/** `create table` and its indexes for a Ponder table in schema `views` (its columns are snake_case already). */
export function tableDdl(table: PgTable, views: string): string {
  const c = getTableConfig(table);
  const cols = c.columns.map((x) => `"${x.name}" ${x.getSQLType()}${x.notNull ? " not null" : ""}${x.primary ? " primary key" : ""}`);
  for (const pk of c.primaryKeys) cols.push(`primary key (${pk.columns.map((k) => `"${k.name}"`).join(", ")})`);
  const indexes = c.indexes.map(
    (i) => `create index on ${views}.${c.name} (${(i.config.columns as { name: string }[]).map((k) => `"${k.name}"`).join(", ")});`,
  );
  return `create table ${views}.${c.name} (${cols.join(", ")});\n${indexes.join("\n")}`;
}

/** Creates schema `views` with the tables (the grading pass's by default). */
export async function createProjectionTables(sql: postgres.Sql, views: string, tables: PgTable[] = GRADING_TABLES): Promise<void> {
  await sql.unsafe(`create schema ${views};\n${tables.map((t) => tableDdl(t, views)).join("\n")}`);
}

/** A pool trade row of `token` at `timestamp` (unix seconds) at `priceX18`: what the pass prices with and dates the chain by. */
export const poolSwapRow = (token: string, timestamp: number, priceX18: bigint, block = timestamp) => ({
  id: `swap-${token}-${timestamp}-${block}`,
  pool: token.toLowerCase(),
  token: token.toLowerCase(),
  sender: token.toLowerCase(),
  recipient: token.toLowerCase(),
  sell_token: false,
  amount_in: "1",
  amount_out: "1",
  volume_usdg: "1",
  price_x_18: priceX18.toString(),
  block_number: String(block),
  timestamp,
  tx_hash: `0x${block.toString(16).padStart(64, "0")}`,
});

/**
 * An `executed_call` row as the indexer writes it (snake_case columns): the transaction itself (`callIndex` 0,
 * id its hash) or the call at `callIndex` of its batch (id `hash:index`, `via` "account" or "entry-point").
 */
export const executedCallRow = (c: {
  txHash: string;
  from: string;
  to: string;
  input: string;
  blockNumber: number | bigint;
  timestamp: number;
  transactionIndex?: number;
  callIndex?: number;
  via?: string | null;
  id?: string;
}) => ({
  id: c.id ?? (c.via ? `${c.txHash}:${c.callIndex ?? 0}` : c.txHash),
  tx_hash: c.txHash,
  from: c.from.toLowerCase(),
  to: c.to.toLowerCase(),
  input: c.input.toLowerCase(),
  selector: c.input.slice(0, 10).toLowerCase(),
  success: true,
  block_number: String(c.blockNumber),
  transaction_index: c.transactionIndex ?? 0,
  call_index: c.callIndex ?? 0,
  timestamp: c.timestamp,
  via: c.via ?? null,
});
