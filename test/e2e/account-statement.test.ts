// What the account statement (adapters/db/reads/accounts.ts) lists: every open item whatever its age, the
// ended ones since the cutoff only, the newest MAX_CLOSED_ITEMS of each kind (newest by the kind's own
// order: a queue entry's request time, an order's, grid's or ladder's id), a queue entry the owner
// receives, only positions and balances above zero, and the tokens they name. Over stand-in tables with
// the indexer's own columns (`create table … (like <views>.<table>)`) in a schema of the test's own, so
// the shared stack's projections are not touched.
import type { Kysely } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ACTIVITY_TABLE, OWNER_TABLES } from "../../adapters/db/projection-version.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { MAX_CLOSED_ITEMS, readAccountRows, sharedRowLoads } from "../../adapters/db/reads/accounts.js";

const stack = inject("stack");
const SCHEMA = `account_statement_${process.pid}`;
// The owners' tables the statement reads (all but the activity log), and the shared ones it joins.
const TABLES = [...OWNER_TABLES].filter((table) => table !== ACTIVITY_TABLE).concat(["vault", "token", "basket", "market", "_ponder_checkpoint"]);
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const OWNER = address(0xa11ce);
const OTHER = address(0xb0b);
const USDG = address(0x05d6);
const STOCK = address(0x570c);
const TRADED = address(0x7ade);
const VAULT = address(0x7a01);
const EMPTY_VAULT = address(0x7a02);
const QUEUE = address(0x9e0e);
const BASKET = address(0xba5);
const CUTOFF = 1_800_000_000;

let sql: postgres.Sql;
let reads: Kysely<Projections>;

beforeAll(async () => {
  sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  await sql`create schema ${sql(SCHEMA)}`;
  for (const table of TABLES) await sql`create table ${sql(SCHEMA)}.${sql(table)} (like ${sql(stack.viewsSchema)}.${sql(table)})`;
  const insert = (table: string, rows: Record<string, unknown>[]) => sql`insert into ${sql(SCHEMA)}.${sql(table)} ${sql(rows as never)}`;

  await insert("_ponder_checkpoint", [{ chain_name: "chain4663", chain_id: 4663, latest_checkpoint: "1" }]);
  await insert("token", [
    { address: USDG, symbol: "USDG", decimals: 6, price_x_18: "1000000000000000000" },
    { address: STOCK, symbol: "STK", decimals: 18, price_x_18: "2000000000000000000" },
    { address: TRADED, symbol: "TRD", decimals: 18, price_x_18: "3000000000000000000" },
    { address: address(0xdead), symbol: "NOPE", decimals: 18, price_x_18: "1" },
  ]);
  await insert("vault", [
    {
      address: VAULT,
      family: "stock-token",
      token: STOCK,
      agent: false,
      status: "active",
      total_assets: "10",
      usdg_assets: "0",
      token_assets: "10",
      total_supply: "10",
      updated_at: CUTOFF,
    },
    {
      address: EMPTY_VAULT,
      family: "merged",
      token: USDG,
      agent: false,
      status: "active",
      total_assets: "0",
      usdg_assets: "0",
      token_assets: "0",
      total_supply: "0",
      updated_at: CUTOFF,
    },
  ]);
  await insert("vault_position", [
    { vault: VAULT, owner: OWNER, shares: "5", updated_at: CUTOFF - 9_000 },
    { vault: EMPTY_VAULT, owner: OWNER, shares: "0", updated_at: CUTOFF },
  ]);
  await insert("market", [{ token: TRADED, quote_is0: true }]);

  // Orders: one open and old, 205 closed since the cutoff (ids 2-206), 3 closed before it, another owner's.
  const order = (id: number, state: string, updatedAt: number, owner = OWNER) => ({
    id: String(id),
    owner,
    token: TRADED,
    state,
    created_at: updatedAt,
    updated_at: updatedAt,
  });
  await insert("limit_order", [
    order(1, "open", CUTOFF - 50_000),
    ...Array.from({ length: 205 }, (_, i) => order(2 + i, "closed", CUTOFF + 10 + i)),
    ...[207, 208, 209].map((id) => order(id, "closed", CUTOFF - 10)),
    order(300, "closed", CUTOFF + 5_000, OTHER),
  ]);
  const grid = (id: number, state: string, updatedAt: number) => ({ id: String(id), owner: OWNER, token: STOCK, state, updated_at: updatedAt });
  await insert("grid", [grid(10, "active", CUTOFF - 1), grid(11, "closed", CUTOFF), grid(12, "closed", CUTOFF - 1), grid(13, "stopped", CUTOFF - 99_999)]);
  await insert("ladder", [
    { id: "5", owner: OWNER, token: TRADED, state: "active", updated_at: CUTOFF - 1 },
    { id: "6", owner: OWNER, token: TRADED, state: "closed", updated_at: CUTOFF - 1 },
  ]);
  await insert("ladder_leg", [
    { ladder_id: "5", leg: 1, buy_price_x_18: "2", sell_price_x_18: "3", amount: "7", trades: 0, finished: false },
    { ladder_id: "5", leg: 0, buy_price_x_18: "1", sell_price_x_18: "2", amount: "7", trades: 1, finished: true },
  ]);

  // Deposits: pending ones (the owner's, and one the owner only receives), 202 settled since the cutoff
  // whose request times fall as their ids and update times rise (the newest 200 by request time are ids
  // 1-200; by update time they would be 3-202), and one settled before the cutoff.
  const deposit = (id: number, state: string, requestedAt: number, updatedAt: number, owner = OWNER, receiver = OWNER) => ({
    queue: QUEUE,
    id: String(id),
    vault: VAULT,
    owner,
    receiver,
    assets: "1",
    min_shares: "0",
    state,
    requested_at: requestedAt,
    updated_at: updatedAt,
  });
  await insert("deposit_request", [
    deposit(1000, "pending", CUTOFF - 80_000, CUTOFF - 80_000),
    deposit(1001, "pending", CUTOFF - 70_000, CUTOFF - 70_000, OTHER, OWNER),
    deposit(1002, "pending", CUTOFF - 60_000, CUTOFF - 60_000, OTHER, OTHER),
    ...Array.from({ length: 202 }, (_, i) => deposit(1 + i, "settled", CUTOFF - 1_000 - i, CUTOFF + 1 + i)),
    deposit(2000, "settled", CUTOFF + 50, CUTOFF - 1),
  ]);
  await insert("withdrawal_request", [
    {
      queue: QUEUE,
      id: "1",
      vault: VAULT,
      owner: OTHER,
      receiver: OWNER,
      shares: "1",
      min_assets_out: "0",
      state: "completed",
      requested_at: CUTOFF,
      updated_at: CUTOFF,
    },
  ]);
  await insert("basket", [
    { address: BASKET, name: "B", symbol: "B", listed: true, tokens: sql.json([TRADED.toUpperCase()]), balances: sql.json([]), total_supply: "1" },
  ]);
  await insert("basket_balance", [
    { basket: BASKET, owner: OWNER, balance: "4", updated_at: CUTOFF },
    { basket: BASKET, owner: OTHER, balance: "4", updated_at: CUTOFF },
  ]);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl, max: 1 }), viewsSchema: SCHEMA });
});

afterAll(async () => {
  await reads?.destroy();
  await sql?.unsafe(`drop schema if exists "${SCHEMA}" cascade`); // its trigger and function too
  await sql?.end();
});

describe("the account statement", () => {
  it("lists open items whatever their age, the newest ended ones since the cutoff up to the cap, and nobody else's", async () => {
    const rows = await readAccountRows({ reads, owner: OWNER.toUpperCase(), cutoff: CUTOFF });
    expect(MAX_CLOSED_ITEMS).toBe(200);
    // Orders: the 200 newest closed (ids 206 down to 7, by id) and the open one; none before the cutoff.
    expect(rows.orders.map((o) => Number(o.id))).toEqual([...Array.from({ length: 200 }, (_, i) => 206 - i), 1]);
    expect(rows.orders[0]!.quoteIs0).toBe(true);
    // Grids: active and stopped are open (listed however old); a closed one only since the cutoff.
    expect(rows.grids.map((g) => g.id)).toEqual(["13", "11", "10"]);
    expect(rows.ladders.map((l) => [l.id, l.parts.map((p) => p.leg)])).toEqual([["5", [0, 1]]]);
    // Deposits, newest request first: the 200 settled with the newest request times, then the pending ones
    // the owner makes or receives (requested earlier).
    expect(rows.deposits.map((d) => Number(d.id))).toEqual([...Array.from({ length: 200 }, (_, i) => 1 + i), 1001, 1000]);
    expect(rows.withdrawals.map((w) => w.id)).toEqual(["1"]);
    expect(rows.vaults.map((v) => [v.vault, v.shares, v.token])).toEqual([[VAULT, "5", STOCK]]);
    expect(rows.holdings.map((h) => [h.basket, h.balance])).toEqual([[BASKET, "4"]]);
    // Tokens: the snapshot's, USDG's and every one the items name among them (the basket's by its lowercase address).
    expect([USDG, STOCK, TRADED].map((a) => [rows.tokens.get(a)?.symbol, rows.tokens.get(a)?.priceX18])).toEqual([
      ["USDG", 10n ** 18n],
      ["STK", 2n * 10n ** 18n],
      ["TRD", 3n * 10n ** 18n],
    ]);
  });

  it("answers each owner its own account when owners are read together, whatever their cutoffs", async () => {
    const alone = async (owner: string, cutoff: number) => JSON.stringify(await readAccountRows({ reads, owner, cutoff }));
    const asks: [string, number][] = [
      [OWNER, CUTOFF],
      [OTHER, CUTOFF],
      [address(0xfee), CUTOFF],
      [OWNER, CUTOFF + 10 * 86_400],
    ];
    const expected: string[] = [];
    for (const [owner, cutoff] of asks) expected.push(await alone(owner, cutoff));
    // Asked in the same turn: one statement (a pool of one connection, the batch whole) answers all of them.
    expect(await Promise.all(asks.map(([owner, cutoff]) => alone(owner, cutoff)))).toEqual(expected);
    // Not all the same answer: the owners and cutoffs asked for changed what each lists.
    expect(new Set(expected).size).toBe(asks.length);
  });

  it("answers empty lists for an owner with nothing", async () => {
    const rows = await readAccountRows({ reads, owner: address(0xfee), cutoff: CUTOFF });
    expect(rows).toMatchObject({ vaults: [], deposits: [], withdrawals: [], orders: [], grids: [], ladders: [], holdings: [] });
    expect(rows.tokens.get(USDG)?.symbol).toBe("USDG");
  });

  it("reads the rows every owner shares once per snapshot, and again after a block, a reorg or re-created views", async () => {
    const read = () => readAccountRows({ reads, owner: OWNER, cutoff: CUTOFF });
    const stockPrice = (rows: Awaited<ReturnType<typeof read>>) => rows.tokens.get(STOCK)?.priceX18;
    const checkpoint = sql`${sql(SCHEMA)}."_ponder_checkpoint"`;
    await read();
    const loads = sharedRowLoads(reads);
    // Nothing written: the copy serves, whoever asks.
    await read();
    await readAccountRows({ reads, owner: OTHER, cutoff: CUTOFF });
    expect(sharedRowLoads(reads)).toBe(loads);

    // A block: rows and the checkpoint move in one transaction.
    await sql.begin(async (tx) => {
      await tx`update ${sql(SCHEMA)}.vault set total_assets = 20, updated_at = ${CUTOFF + 1} where address = ${VAULT}`;
      await tx`update ${checkpoint} set latest_checkpoint = '2'`;
    });
    const afterBlock = await read();
    expect(sharedRowLoads(reads)).toBe(loads + 1);
    expect(afterBlock.vaults.map((v) => [v.totalAssets, v.vaultUpdatedAt])).toEqual([["20", CUTOFF + 1]]);

    // A reorg: Ponder reverts rows without moving the checkpoint, and re-creates its triggers on it (new OIDs).
    await sql.unsafe(`create function "${SCHEMA}".noop() returns trigger language plpgsql as $$ begin return null; end $$`);
    await sql.begin(async (tx) => {
      await tx`update ${sql(SCHEMA)}.token set price_x_18 = 5, updated_at = ${CUTOFF + 2} where address = ${STOCK}`;
      await tx.unsafe(`create trigger reorged after update on "${SCHEMA}"."_ponder_checkpoint" for each statement execute function "${SCHEMA}".noop()`);
    });
    const afterReorg = await read();
    expect(sharedRowLoads(reads)).toBe(loads + 2);
    expect(stockPrice(afterReorg)).toBe(5n);
    expect(afterReorg.vaults[0]!.tokenUpdatedAt).toBe(CUTOFF + 2);
    await sql.begin(async (tx) => {
      await tx`update ${sql(SCHEMA)}.token set price_x_18 = 6 where address = ${STOCK}`;
      await tx.unsafe(`drop trigger reorged on "${SCHEMA}"."_ponder_checkpoint"`);
      await tx.unsafe(`create trigger reorged after update on "${SCHEMA}"."_ponder_checkpoint" for each statement execute function "${SCHEMA}".noop()`);
    });
    expect(stockPrice(await read())).toBe(6n);
    expect(sharedRowLoads(reads)).toBe(loads + 3);
    await sql.unsafe(`drop trigger reorged on "${SCHEMA}"."_ponder_checkpoint"`);
    await read();
    expect(sharedRowLoads(reads)).toBe(loads + 4);

    // Views re-created (a reindex, a restart): the checkpoint view is another relation, with the same rows.
    await sql.begin(async (tx) => {
      await tx`update ${sql(SCHEMA)}.market set quote_is0 = false where token = ${TRADED}`;
      await tx.unsafe(`alter table "${SCHEMA}"."_ponder_checkpoint" rename to old_checkpoint`);
      await tx.unsafe(`create table "${SCHEMA}"."_ponder_checkpoint" as select * from "${SCHEMA}".old_checkpoint`);
    });
    const afterViews = await read();
    expect(afterViews.orders[0]!.quoteIs0).toBe(false);
    expect(sharedRowLoads(reads)).toBe(loads + 5);
  });

  it("answers without the copy's version while a lock on the checkpoint table holds the version up, and keeps the copy", async () => {
    const read = () => readAccountRows({ reads, owner: OWNER, cutoff: CUTOFF });
    const before = await read();
    const loads = sharedRowLoads(reads);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // As a reorg's revert holds it while it re-creates Ponder's triggers, or a stuck session would.
    const holding = sql.begin(async (tx) => {
      await tx.unsafe(`lock table "${SCHEMA}"."_ponder_checkpoint" in access exclusive mode`);
      locked();
      await released;
    });
    await isLocked;
    try {
      const during = await read();
      expect({ ...during, tokens: [...during.tokens] }).toEqual({ ...before, tokens: [...before.tokens] });
      expect(sharedRowLoads(reads)).toBe(loads + 1);
    } finally {
      release();
      await holding;
    }
    // The copy from before the lock still holds for the snapshot after it.
    await read();
    expect(sharedRowLoads(reads)).toBe(loads + 1);
  });
});
