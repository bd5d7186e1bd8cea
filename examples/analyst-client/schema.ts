// The indexer's tables that the examples read, as @ponder/client needs them: drizzle tables with the
// names and column types of the service's ponder.schema.ts, written with drizzle-orm alone so that no
// part of the service (nor the `ponder` package it imports) is needed to query it. Column types as Ponder
// makes them: an address or hash is text, lowercased when compared (so a checksummed address matches); an
// amount is numeric(78), read as a bigint. test/e2e/analysts-guide.test.ts checks these against the
// service's schema.
import { boolean, customType, integer, json, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** Ponder's t.hex(): text, lowercase. */
const hex = customType<{ data: `0x${string}`; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => value.toLowerCase(),
});

/** Ponder's t.bigint(): numeric(78), a bigint in JavaScript. */
const bigint = customType<{ data: bigint; driverData: string }>({
  dataType: () => "numeric(78)",
  fromDriver: (value) => BigInt(value),
});

/** Every charted token (one with a USDG market), and USDG itself. */
export const token = pgTable("token", {
  address: hex("address").primaryKey(),
  symbol: text("symbol").notNull(),
  name: text("name").notNull(),
  decimals: integer("decimals").notNull(),
  category: text("category").notNull(),
  verified: boolean("verified").notNull(),
  pool: hex("pool"),
  priceX18: bigint("price_x_18").notNull(),
  reserveUsdg: bigint("reserve_usdg").notNull(),
  reserveToken: bigint("reserve_token").notNull(),
  swaps: integer("swaps").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Every swap on a USDG pool. */
export const poolSwap = pgTable("pool_swap", {
  id: text("id").primaryKey(),
  pool: hex("pool").notNull(),
  token: hex("token").notNull(),
  sender: hex("sender").notNull(),
  recipient: hex("recipient").notNull(),
  sellToken: boolean("sell_token").notNull(),
  amountIn: bigint("amount_in").notNull(),
  amountOut: bigint("amount_out").notNull(),
  volumeUsdg: bigint("volume_usdg").notNull(),
  priceX18: bigint("price_x_18").notNull(),
  blockNumber: bigint("block_number").notNull(),
  timestamp: integer("timestamp").notNull(),
  txHash: hex("tx_hash").notNull(),
});

/** The append-only activity log: one row per change per owner. */
export const activity = pgTable(
  "activity",
  {
    owner: hex("owner").notNull(),
    position: bigint("position").notNull(),
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    contract: hex("contract").notNull(),
    data: json("data").$type<Record<string, string | number | boolean | null>>().notNull(),
    txHash: hex("tx_hash").notNull(),
    blockNumber: bigint("block_number").notNull(),
    blockHash: hex("block_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    timestamp: integer("timestamp").notNull(),
  },
  (table) => [primaryKey({ columns: [table.owner, table.position] })],
);

/** Queued deposits into merged and up vaults. */
export const depositRequest = pgTable(
  "deposit_request",
  {
    queue: hex("queue").notNull(),
    id: bigint("id").notNull(),
    vault: hex("vault").notNull(),
    owner: hex("owner").notNull(),
    receiver: hex("receiver").notNull(),
    assets: bigint("assets").notNull(),
    minShares: bigint("min_shares").notNull(),
    state: text("state").notNull(),
    shares: bigint("shares"),
    requestedAt: integer("requested_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.queue, table.id] })],
);
