// Grading bounded by what changes (issue 51), against real Postgres with the projections shaped by
// ponder.schema.ts: a waiting action is read again only when its day or week comes or a change it waits on
// is logged; an order filing's facts are its own order's, never another order of the same transaction; a
// queued deposit whose transaction made no request is settled not graded an hour on.
import type { Kysely } from "kysely";
import type postgres from "postgres";
import { getAddress, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGrid, buildLimitOrder, buildVaultDeposit } from "../../../domain/bundles/index.js";
import { callKey } from "../../../domain/grading/index.js";
import type { Database } from "../../../adapters/db/api-schema.js";
import type { Projections } from "../../../adapters/db/projections.js";
import { runGrading } from "../../../usecases/report-card/run-grading.js";
import { gradingTestDb, type GradingTestDb } from "../../helpers/grading-db.js";
import { executedCallRow, poolSwapRow } from "../../helpers/projection-tables.js";

const VIEWS = "test_views";
const hook = "0x5555555555555555555555555555555555555555" as Address;
const strategy = "0x6666666666666666666666666666666666666666" as Address;
const usdg = "0x3333333333333333333333333333333333333333" as Address;
const token = "0x4444444444444444444444444444444444444444" as Address;
const cheap = "0x7777777777777777777777777777777777777777" as Address;
const vault = "0x2222222222222222222222222222222222222222" as Address;
const E18 = 10n ** 18n;
const MIN = 60_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 12);

let grading: GradingTestDb;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let raw: postgres.Sql;

beforeAll(async () => {
  grading = await gradingTestDb(VIEWS);
  ({ db, reads, raw } = grading);
});
afterAll(() => grading?.close());

let n = 0;
let block = 100;
const wallet = () => getAddress(`0x${(0xb0 + n++).toString(16).padStart(40, "0")}`);
const s = (ms: number) => Math.floor(ms / 1000);
type Step = { to: string; data: string };

async function file(owner: Address, steps: readonly Step[], kind: string, at: number): Promise<string> {
  const id = `filing-${n++}`;
  await db
    .insertInto("filing")
    .values({
      id,
      owner: owner.toLowerCase(),
      agent_tag: "mine",
      kind,
      steps: steps.map((x) => ({ to: x.to, data: x.data, value: "0" })),
      created_at: new Date(at),
      call_key: callKey(steps),
    })
    .execute();
  return id;
}

/** The owner's call mined at `at` (ms), in the indexer's executed_call shape. */
async function mined(owner: Address, step: Step, at: number): Promise<string> {
  const hash = `0x${(++n).toString(16).padStart(64, "0")}`;
  block += 1;
  await raw`insert into ${raw(VIEWS)}.executed_call ${raw(executedCallRow({ txHash: hash, from: owner, to: step.to, input: step.data, blockNumber: block, timestamp: s(at) }))}`;
  return hash;
}

/** A change the indexer logs for `owner` in transaction `hash` (a block of its own, after every earlier one). */
async function change(owner: Address, kind: string, subject: string, contract: string, data: Record<string, unknown>, hash: string, at: number) {
  block += 1;
  await raw`insert into ${raw(VIEWS)}.activity ${raw({
    owner: owner.toLowerCase(),
    position: String(BigInt(block) * 1_000_000n),
    kind,
    subject,
    contract: contract.toLowerCase(),
    data: raw.json(data as postgres.JSONValue),
    tx_hash: hash,
    block_number: String(block),
    block_hash: hash,
    log_index: 0,
    timestamp: s(at),
  })}`;
}

async function order(id: number, owner: Address, t: Address, amountIn: bigint, at: number, fill?: { in: bigint; out: bigint }) {
  await raw`insert into ${raw(VIEWS)}.limit_order ${raw({
    id: String(id),
    owner: owner.toLowerCase(),
    token: t.toLowerCase(),
    sell_token: false,
    market: false,
    amount_in: String(amountIn),
    price_x_18: String(2n * E18),
    filled_in: String(fill?.in ?? 0n),
    filled_out: String(fill?.out ?? 0n),
    commission: "0",
    remaining: fill ? "0" : String(amountIn),
    owed0: "0",
    owed1: "0",
    claimed0: "0",
    claimed1: "0",
    state: fill ? "filled" : "open",
    close_reason: null,
    created_at: s(at),
    updated_at: s(at),
  })}`;
}

/** A trade of `token` at `at`: prices it and moves the indexed chain's time there. */
const trade = async (at: number, priceX18: bigint) => {
  block += 1;
  await raw`insert into ${raw(VIEWS)}.pool_swap ${raw(poolSwapRow(token, s(at), priceX18, block))}`;
};
const actionOf = (id: string) => db.selectFrom("report_action").selectAll().where("filing_id", "=", id).executeTakeFirstOrThrow();
const pass = (at: number) => runGrading({ db, reads, now: () => new Date(at) });

describe("an action's facts are its own", () => {
  it("an order filing whose transaction also placed a cheaper order: graded by its own order's fill, not the other's", async () => {
    const owner = wallet();
    // "Buy WETH": 500 USDG at 2 USDG a token. The same transaction also bought 1,000 of a cheap token for 1 USDG.
    const bundle = buildLimitOrder({ owner, hook, usdg, token, sellToken: false, amountIn: 500_000_000n, priceX18: 2n * E18 });
    const id = await file(owner, bundle.steps, bundle.kind, T0);
    const tx = await mined(owner, bundle.steps[1]!, T0 + MIN);
    await change(owner, "order.placed", "1", hook, { token, sellToken: false, amountIn: "500000000", priceX18: String(2n * E18), market: false }, tx, T0 + MIN);
    await change(owner, "order.placed", "2", hook, { token: cheap, sellToken: false, amountIn: "1000000", priceX18: "1", market: false }, tx, T0 + MIN);
    await order(1, owner, token, 500_000_000n, T0 + MIN, { in: 500_000_000n, out: 250n * E18 });
    await order(2, owner, cheap, 1_000_000n, T0 + MIN, { in: 1_000_000n, out: 1000n * E18 });
    const fill = `0x${"f".repeat(64)}`;
    await change(owner, "order.filled", "1", hook, { amountIn: "500000000", amountOut: String(250n * E18), remaining: "0" }, fill, T0 + 2 * MIN);
    await change(owner, "order.filled", "2", hook, { amountIn: "1000000", amountOut: String(1000n * E18), remaining: "0" }, fill, T0 + 2 * MIN);
    // A day after the last fill WETH trades at 1.9: below the 2.0 paid, a miss (at the mixed 0.4 it would be a hit).
    await trade(T0 + 2 * MIN + DAY, (19n * E18) / 10n);
    await trade(T0 + 3 * MIN + DAY, (19n * E18) / 10n);
    await pass(T0 + 3 * MIN + DAY);

    const row = await actionOf(id);
    expect([row.state, row.hit]).toEqual(["graded", false]);
    expect(row.figures).toMatchObject({ fillPrice: "2.0000", priceDayLater: "1.9000" });
  });
});

describe("a waiting action is read when something can change it", () => {
  it("passes with nothing new read no waiting action; a fill, a settlement and a day coming each bring in only their own", async () => {
    const owner = wallet();
    const t1 = T0 + 2 * DAY;
    const limit = buildLimitOrder({ owner, hook, usdg, token, sellToken: false, amountIn: 300_000_000n, priceX18: 2n * E18 });
    const deposit = buildVaultDeposit({ family: "merged", owner, vault, usdg, assets: 10_000_000n, minShares: 0n });
    const grid = buildGrid({ owner, strategy, action: "open", usdg, token, buyPriceX18: E18, sellPriceX18: 3n * E18, amountUsdg: 10n, repeat: true });
    const ids = {
      order: await file(owner, limit.steps, limit.kind, t1),
      deposit: await file(owner, deposit.steps, deposit.kind, t1),
      grid: await file(owner, grid.steps, grid.kind, t1),
    };
    const orderTx = await mined(owner, limit.steps[1]!, t1 + MIN);
    await change(
      owner,
      "order.placed",
      "11",
      hook,
      { token, sellToken: false, amountIn: "300000000", priceX18: String(2n * E18), market: false },
      orderTx,
      t1 + MIN,
    );
    await order(11, owner, token, 300_000_000n, t1 + MIN);
    const depositTx = await mined(owner, deposit.steps[1]!, t1 + MIN);
    await change(owner, "vault.deposit.requested", vault, vault, { id: "5", assets: "10000000", minShares: "0", receiver: owner }, depositTx, t1 + MIN);
    await raw`insert into ${raw(VIEWS)}.deposit_request ${raw({ queue: vault.toLowerCase(), id: "5", vault: vault.toLowerCase(), owner: owner.toLowerCase(), receiver: owner.toLowerCase(), assets: "10000000", min_shares: "0", state: "pending", shares: null, requested_at: s(t1 + MIN), updated_at: s(t1 + MIN) })}`;
    await mined(owner, grid.steps[1]!, t1 + MIN);
    await trade(t1 + 2 * MIN, 2n * E18);

    const first = await pass(t1 + 2 * MIN);
    expect([first.matched, first.waiting]).toEqual([3, 3]);
    expect((await actionOf(ids.order)).waits_on).toEqual(["order:11"]);
    expect((await actionOf(ids.deposit)).waits_on).toEqual([`deposit:${vault.toLowerCase()}:5`]);
    expect((await actionOf(ids.grid)).due_at).toEqual(new Date(s(t1 + MIN + DAY) * 1000));

    // Nothing changed: no waiting action is read, however many wait.
    await trade(t1 + 3 * MIN, 2n * E18);
    expect((await pass(t1 + 3 * MIN)).filings).toBe(0);

    // The order fills: only it is read; it now waits its day.
    await change(
      owner,
      "order.filled",
      "11",
      hook,
      { amountIn: "300000000", amountOut: String(150n * E18), remaining: "0" },
      `0x${"e".repeat(64)}`,
      t1 + 4 * MIN,
    );
    await raw`update ${raw(VIEWS)}.limit_order set state = 'filled', filled_in = 300000000, filled_out = ${String(150n * E18)}, remaining = 0 where id = 11`;
    expect((await pass(t1 + 4 * MIN)).filings).toBe(1);
    expect(await actionOf(ids.order)).toMatchObject({ state: "waiting", reason: "day", waits_on: null });

    // The queue settles the deposit: only it is read; it now waits its week.
    await change(owner, "vault.deposit.settled", vault, vault, { id: "5", assets: "10000000", shares: "10000000" }, `0x${"d".repeat(64)}`, t1 + 5 * MIN);
    await raw`update ${raw(VIEWS)}.deposit_request set state = 'settled', shares = 10000000, updated_at = ${s(t1 + 5 * MIN)} where id = 5`;
    expect((await pass(t1 + 5 * MIN)).filings).toBe(1);
    expect(await actionOf(ids.deposit)).toMatchObject({ state: "waiting", reason: "week" });

    // The grid open's day comes (the order's is 3 minutes later): only the grid is read, and graded.
    await trade(t1 + MIN + DAY + 30_000, 2n * E18);
    const due = await pass(t1 + MIN + DAY + 30_000);
    expect([due.filings, due.graded]).toEqual([1, 1]);
    expect(await actionOf(ids.grid)).toMatchObject({ state: "graded", hit: true, due_at: null });
  });

  it("a queued deposit whose transaction made no queue request waits an hour, then is settled not graded", async () => {
    const owner = wallet();
    const t2 = T0 + 5 * DAY;
    const deposit = buildVaultDeposit({ family: "merged", owner, vault, usdg, assets: 7_000_000n, minShares: 0n });
    const id = await file(owner, deposit.steps, deposit.kind, t2);
    await mined(owner, deposit.steps[1]!, t2 + MIN);
    await trade(t2 + 2 * MIN, 2n * E18);
    await pass(t2 + 2 * MIN);
    expect(await actionOf(id)).toMatchObject({ state: "waiting", reason: "queue" });
    await trade(t2 + MIN + 60 * MIN, 2n * E18);
    await pass(t2 + MIN + 60 * MIN);
    const row = await actionOf(id);
    expect([row.state, row.reason, row.due_at]).toEqual(["not-graded", "other", null]);
    expect(row.note).toBe("Vault deposit (queued) made no queue request like the one prepared: not graded.");
  });
});
