// POST /v1/agent/prepare/{kind} end to end for the kinds, families and actions that prepare.test.ts does
// not send: the up vault's withdrawals (queue, cancel, in kind), the stock-token vault's in-kind redeem,
// market orders with claim0/claim1, realize, grid openWithMarket/setRepeat/collect, ladder-strategy
// setRepeat/collect, and ladder-strategy via the agent account. Each: prepare through the API, sign and
// send every step with viem from a devnet test account, every receipt succeeds, and the effect shows in
// GET accounts/{owner} and in the owner's activity feed. Wallets 12 (owner) and 13 (agent key), funded
// here by the admin (10), so prepare.test.ts's wallets 3 and 4 are not disturbed.
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { formatUnits, getAddress, parseEther, parseUnits, type Address, type Hex, type PublicClient, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  agentAccountAbi,
  agentAccountFactoryAbi,
  gridStrategyAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  marketRegistryAbi,
  mergedVaultAbi,
  poolAbi,
  stockVaultAbi,
  testTokenAbi,
  upWithdrawalQueueAbi,
} from "../../abis/index.js";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { createJobClient } from "../../adapters/queue/request-reply.js";
import { PREPARE_QUEUE } from "../../usecases/prepare/job.js";
import { prepareProcessor } from "../../workers/processors/prepare.js";
import { randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { getData, postChecked, type Answer, until } from "../helpers/http.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, mintAt, sendEthAt, sendStepsAt, testAccount, tokenIn, walletAt, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");
const admin = testAccount(10);
const human = testAccount(12);
const agentKey = testAccount(13);
/** A key that signs nothing: another wallet for the keepers moved away and the refusals. */
const nobody = privateKeyToAccount(generatePrivateKey()).address;
type Signer = typeof human;

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let redis: Redis;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const prefix = randomPrefix();

const walletOf = (acc: Signer) => walletAt(stack.rpcUrl, acc);

const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const tokenBy = (symbol: string) => tokenIn(d, symbol);
const vaultOf = (family: string, symbol: string): DeployedVault => d.vaults.find((v) => v.family === family && same(v.token, tokenBy(symbol).address))!;
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const usdg = () => d.contracts.usdg!;

/** Sends one contract call from `from` and waits for a successful receipt. */
const write = (from: Signer, call: Parameters<typeof writeAt>[3]) => writeAt(stack.rpcUrl, chain, from, call);
const balanceOf = (token: Address, who: Address) => balanceAt(chain, token, who);

beforeAll(async () => {
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, redis, d, chain, app: t, validator } = opened);
  // Activity cursors are issued and checked against this clock: keep it at the chain's time.
  t.clock.set(new Date());

  // Funding: gas, USDG and the tokens the cases pay with, all from the admin (it may mint every TestToken).
  for (const w of [human, agentKey]) {
    await sendEthAt(stack.rpcUrl, chain, w.address, parseEther("10"));
    await mintAt(stack.rpcUrl, chain, usdg(), w.address, parseUnits("100000", 6));
  }
  await mintAt(stack.rpcUrl, chain, tokenBy("WIF2").address, human.address, parseUnits("1000", 18));
  await mintAt(stack.rpcUrl, chain, tokenBy("tsAAPL").address, human.address, parseUnits("10", 18));
}, 120_000);

afterAll(() => opened?.close());

type Prepared = { id: string; kind: string; owner: Address; steps: { to: Address; data: Hex; value: string }[]; params: any; walletSendCalls: any };

const prepare = (kind: string, body: Record<string, unknown>, from: Address = human.address): Promise<Answer> =>
  postChecked(t.app, validator, `/v1/agent/prepare/${kind}`, { owner: from, ...body });

async function prepared(kind: string, body: Record<string, unknown>, from: Address = human.address): Promise<Prepared> {
  const { status, body: answer } = await prepare(kind, body, from);
  expect(status, `${kind}: ${JSON.stringify(answer).slice(0, 600)}`).toBe(200);
  const result = answer.data as Prepared;
  expect(result.owner).toBe(from);
  expect(result.walletSendCalls).toMatchObject({ version: "2.0.0", chainId: "0x1237", from });
  return result;
}

/** Signs and sends every step in order from `from`, waiting for each receipt. */
const sendAll = (result: Prepared, from: Signer = human) => sendStepsAt(stack.rpcUrl, chain, from, result.steps, result.kind);

const getJson = (path: string) => getData(t.app, validator, path);
const accountOf = (owner: Address) => getJson(`/v1/agent/accounts/${owner}`);

/** The owner's activity feed: a baseline cursor now; `seen` polls on from it until every kind wanted has come. */
async function feed(owner: Address) {
  let cursor = (await getJson(`/v1/agent/accounts/${owner}/activity`)).cursor as string;
  const changes: { kind: string; subject: string; data: Record<string, unknown> }[] = [];
  return {
    changes,
    async seen(kinds: string[], subject?: string) {
      await until(`activity ${kinds.join(", ")}${subject ? ` of ${subject}` : ""} for ${owner}`, async () => {
        const page = await getJson(`/v1/agent/accounts/${owner}/activity?cursor=${encodeURIComponent(cursor)}`);
        cursor = page.cursor;
        changes.push(...page.changes);
        return kinds.every((k) => changes.some((c) => c.kind === k && (subject === undefined || c.subject === subject)));
      });
    },
  };
}

async function priceOf(symbol: string): Promise<bigint> {
  return chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [tokenBy(symbol).address] });
}
/** The price now times `factor`, as the API's decimal USDG-per-token string. */
async function price(symbol: string, factor: number): Promise<string> {
  return formatUnits(((await priceOf(symbol)) * BigInt(Math.round(factor * 10_000))) / 10_000n, 18);
}
/**
 * Wallet 12's agent account, traded by wallet 13: made when missing, and its limits set around WIF2's price
 * now with 100 USDG of budget left (floor half the price, ceiling twice it, fee cap 100 bps, spread 500 bps).
 */
async function ensureAgentAccount(): Promise<Address> {
  const factory = d.contracts.agentAccountFactory!;
  const spot = await priceOf("WIF2");
  let account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [human.address] });
  const committed = account === zeroAddress ? 0n : await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" });
  const limits = { floorX18: spot / 2n, ceilingX18: spot * 2n, budgetUsdg: committed + 100_000_000n, feeCapBps: 100, minSpreadBps: 500 };
  if (account === zeroAddress) {
    await write(human, { address: factory, abi: agentAccountFactoryAbi, functionName: "create", args: [agentKey.address, limits] });
    account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [human.address] });
  } else {
    await write(human, { address: account, abi: agentAccountAbi, functionName: "setLimits", args: [limits] });
  }
  expect(await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "agent" })).toBe(agentKey.address);
  // The agent key's account is looked up in the index (agent_account): wait until the indexer has it.
  await until("the indexed agent account", () => reads.selectFrom("agentAccount").select("address").where("address", "=", lower(account)).executeTakeFirst());
  return account;
}

async function setKeeper(vault: Address, keeper: Address) {
  await write(admin, { address: vault, abi: mergedVaultAbi, functionName: "setKeeper", args: [keeper] });
}

describe("vault families: what prepare.test.ts leaves out", () => {
  it("up vault: vault-withdraw queue, vault-cancel-withdraw (up-vault-cancel) and in-kind (redeemEmergencyInKind)", async () => {
    const v = vaultOf("up", "LINK");
    const activity = await feed(human.address);
    // Shares first: a deposit the vault's keeper settles.
    const held = await balanceOf(v.address, human.address);
    await sendAll(await prepared("vault-deposit", { vault: v.address, amount: "400" }));
    const shares = await until("the settled up shares", async () => {
      const s = await balanceOf(v.address, human.address);
      return s > held ? s : undefined;
    });
    const lastRequest =
      (
        await reads
          .selectFrom("withdrawalRequest")
          .select("id")
          .where("queue", "=", lower(v.withdrawalQueue!))
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst()
      )?.id ?? 0n;
    const minimum = await chain.readContract({ address: v.withdrawalQueue!, abi: upWithdrawalQueueAbi, functionName: "minimumShares" });
    const queued = shares / 2n > minimum ? shares / 2n : minimum;
    expect(queued).toBeLessThan(shares);
    await setKeeper(v.address, nobody);
    try {
      const queue = await prepared("vault-withdraw", { vault: v.address, shares: formatUnits(queued, 12), mode: "queue" });
      expect(queue.kind).toBe("up-vault-withdraw");
      expect(queue.steps.map((s) => s.to)).toEqual([v.address, v.withdrawalQueue]);
      await sendAll(queue);
      const request = await until("the pending up withdrawal", () =>
        reads
          .selectFrom("withdrawalRequest")
          .selectAll()
          .where("queue", "=", lower(v.withdrawalQueue!))
          .where("owner", "=", lower(human.address))
          .where("id", ">", lastRequest)
          .where("state", "=", "pending")
          .executeTakeFirst(),
      );
      expect(request.shares).toBe(queued);
      const cancel = await prepared("vault-cancel-withdraw", { vault: v.address, id: request.id.toString() });
      expect(cancel.kind).toBe("up-vault-cancel");
      expect(cancel.steps.map((s) => s.to)).toEqual([v.withdrawalQueue]);
      await sendAll(cancel);
      await until(
        "the cancelled up withdrawal",
        async () =>
          (
            await reads
              .selectFrom("withdrawalRequest")
              .select("state")
              .where("queue", "=", lower(v.withdrawalQueue!))
              .where("id", "=", request.id)
              .executeTakeFirst()
          )?.state === "cancelled",
      );
      expect(await balanceOf(v.address, human.address)).toBe(shares);
    } finally {
      await setKeeper(v.address, d.contracts.marketMaker!);
    }

    const out = shares / 3n;
    const [tokenBefore, usdgBefore] = await Promise.all([balanceOf(tokenBy("LINK").address, human.address), balanceOf(usdg(), human.address)]);
    const inKind = await prepared("vault-withdraw", { vault: v.address, shares: formatUnits(out, 12), mode: "in-kind" });
    expect(inKind.kind).toBe("up-vault-withdraw");
    expect(inKind.steps).toHaveLength(1);
    await sendAll(inKind);
    expect(await balanceOf(v.address, human.address)).toBe(shares - out);
    const [tokenAfter, usdgAfter] = await Promise.all([balanceOf(tokenBy("LINK").address, human.address), balanceOf(usdg(), human.address)]);
    expect(tokenAfter - tokenBefore + (usdgAfter - usdgBefore)).toBeGreaterThan(0n);

    await until("the up position in accounts/{owner}", async () => {
      const account = await accountOf(human.address);
      const position = account.vaults.find((p: any) => same(p.vault, v.address));
      const cancelled = account.withdrawalRequests.some((r: any) => r.state === "cancelled");
      return position && BigInt(position.sharesUnits) === shares - out && cancelled;
    });
    // Figures at one instant: no valuation (the chain's clock) is from after the answer's own time.
    const account = await accountOf(human.address);
    for (const p of account.vaults) if (p.valuedAt) expect(Date.parse(p.valuedAt), p.vault).toBeLessThanOrEqual(Date.parse(account.asOf));
    await activity.seen(["vault.deposit.requested", "vault.withdrawal.requested", "vault.withdrawal.cancelled", "vault.shares"]);
  });

  it("stock-token vault: vault-withdraw in-kind (the vault's redeem) to the owner", async () => {
    const v = vaultOf("stock-token", "tsAAPL");
    const stock = tokenBy("tsAAPL").address;
    const activity = await feed(human.address);
    // Shares straight from the ERC4626 (a USDG deposit needs the aggregator, which another kind prepares).
    await write(human, { address: stock, abi: testTokenAbi, functionName: "approve", args: [v.address, parseUnits("4", 18)] });
    await write(human, { address: v.address, abi: stockVaultAbi, functionName: "deposit", args: [parseUnits("4", 18), human.address] });
    const shares = await balanceOf(v.address, human.address);
    expect(shares).toBeGreaterThan(0n);
    const before = await balanceOf(stock, human.address);
    const half = shares / 2n;
    const result = await prepared("vault-withdraw", { vault: v.address, shares: formatUnits(half, 18), mode: "in-kind" });
    expect(result.kind).toBe("stock-vault-withdraw");
    expect(result.steps).toHaveLength(1);
    await sendAll(result);
    expect(await balanceOf(v.address, human.address)).toBe(shares - half);
    expect(await balanceOf(stock, human.address)).toBeGreaterThan(before);
    await until("the stock-token position in accounts/{owner}", async () => {
      const account = await accountOf(human.address);
      return account.vaults.some((p: any) => same(p.vault, v.address) && p.family === "stock-token" && BigInt(p.sharesUnits) === shares - half);
    });
    await activity.seen(["vault.shares"], getAddress(v.address));
  });
});

describe("orders: market orders, claim0 / claim1, realize", () => {
  const hook = () => d.contracts.limitOrderHook!;
  const orderOf = (id: bigint) => chain.readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "orders", args: [id] });
  // The newest order id on the chain (the hook's next id less one), not in the projection: the indexer
  // may still be indexing the orders of the test before, which would then pass for this test's new one.
  const lastOrder = async () => (await chain.readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "nextId" })) - 1n;
  const newOrder = (after: bigint) =>
    until("the order", () =>
      reads
        .selectFrom("limitOrder")
        .select(["id", "state", "market"])
        .where("owner", "=", lower(human.address))
        .where("id", ">", after)
        .orderBy("id", "desc")
        .executeTakeFirst(),
    );

  it("limit-order type market, buy and sell: filled at once, then claimed with claim0 and claim1", async () => {
    const activity = await feed(human.address);
    const used: string[] = [];
    for (const [side, amount] of [
      ["buy", "30"],
      ["sell", "40"],
    ] as const) {
      const after = await lastOrder();
      const result = await prepared("limit-order", { token: "WIF2", side, amount, type: "market" });
      expect(result.kind).toBe("limit-order");
      expect(result.steps).toHaveLength(2);
      await sendAll(result);
      const order = await newOrder(after);
      expect(order.market).toBe(true);
      const onChain = await orderOf(order.id);
      // A buy is owed the token, a sell USDG: one pool side each.
      const action = onChain.owed0 > 0n ? "claim0" : "claim1";
      expect(onChain.owed0 > 0n !== onChain.owed1 > 0n).toBe(true);
      used.push(action);
      const other = action === "claim0" ? "claim1" : "claim0";
      expect((await prepare("order-action", { id: order.id.toString(), action: other })).body.code).toBe("NOTHING_TO_CLAIM");
      await sendAll(await prepared("order-action", { id: order.id.toString(), action }));
      await until(
        "the claimed market order",
        async () => (await reads.selectFrom("limitOrder").select("state").where("id", "=", order.id).executeTakeFirst())?.state === "closed",
      );
      const account = await accountOf(human.address);
      expect(account.limitOrders.find((o: any) => o.id === order.id.toString())).toMatchObject({ side, market: true, state: "closed", closeReason: "filled" });
    }
    expect(used.sort()).toEqual(["claim0", "claim1"]);
    await activity.seen(["order.placed", "order.filled", "order.claimed", "order.closed"]);
  });

  it("order-action realize of a partly filled order, then claimBoth", async () => {
    const activity = await feed(human.address);
    const wif = tokenBy("WIF2").address;
    const pool = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "poolOf", args: [wif] });
    // A buy line 2% above the price now, far larger than the pool fills up to it: the keeper (or this
    // test) fills a part, and the rest waits. The live market walks a meme token by percents within
    // seconds, so when the line is no longer crossed the test sells WIF2 into the pool (about -2%) and
    // fills a little itself (anyone may fill a crossed order). When the market had walked so far below
    // the line that the pool took the whole order, another is placed: the test needs one part-filled.
    const partlyFilled = async () => {
      const after = await lastOrder();
      await sendAll(await prepared("limit-order", { token: "WIF2", side: "buy", amount: "8000", price: await price("WIF2", 1.02) }));
      const order = await newOrder(after);
      const filled = await until(
        "a partial fill",
        async () => {
          const o = await orderOf(order.id);
          if (o.filledIn > 0n) return o;
          const done = await walletOf(human)
            .writeContract({ address: hook(), abi: limitOrderHookAbi, functionName: "fill", args: [order.id, parseUnits("50", 6)] })
            .then(
              async (hash) => (await chain.waitForTransactionReceipt({ hash })).status === "success",
              () => false,
            );
          if (done) return undefined;
          const [reserveToken] = await chain.readContract({ address: pool, abi: poolAbi, functionName: "getReserves" });
          const push = reserveToken / 100n;
          await mintAt(stack.rpcUrl, chain, wif, human.address, push);
          await write(human, { address: wif, abi: testTokenAbi, functionName: "approve", args: [pool, push] });
          await write(human, { address: pool, abi: poolAbi, functionName: "swap", args: [wif, push, 0n, human.address] });
          return undefined;
        },
        40_000,
      );
      return { order, filled };
    };
    let attempt = await partlyFilled();
    for (let tries = 1; !attempt.filled.active && tries < 3; tries++) attempt = await partlyFilled();
    const { order, filled } = attempt;
    expect(filled.active).toBe(true);
    expect(filled.remaining).toBeGreaterThan(0n);
    // The resolver reads the fill from the projection: wait for the indexer.
    await until(
      "the fill in the projection",
      async () => ((await reads.selectFrom("limitOrder").select("filledIn").where("id", "=", order.id).executeTakeFirst())?.filledIn ?? 0n) > 0n,
    );
    const realize = await prepared("order-action", { id: order.id.toString(), action: "realize" });
    expect(realize.steps).toHaveLength(1);
    await sendAll(realize);
    const realized = await orderOf(order.id);
    expect([realized.active, realized.endReason]).toEqual([false, 2]);
    await sendAll(await prepared("order-action", { id: order.id.toString(), action: "claimBoth" }));
    await until("the realized order in accounts/{owner}", async () => {
      const o = (await accountOf(human.address)).limitOrders.find((x: any) => x.id === order.id.toString());
      return o?.state === "closed" && o.closeReason === "realized" && BigInt(o.filledInUnits) > 0n;
    });
    await activity.seen(["order.placed", "order.filled", "order.claimable", "order.claimed", "order.closed"], order.id.toString());
  });
});

describe("grid: openWithMarket, setRepeat, collect", () => {
  it("opens holding the token, stops repeating, sells at its line after the price rises, and pays out the profit", async () => {
    const token = tokenBy("WIF2").address;
    const strategy = d.contracts.gridStrategy!;
    const activity = await feed(human.address);
    const after = (await chain.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "nextId" })) - 1n; // the chain's, not the projection's
    const open = await prepared("grid", {
      action: "openWithMarket",
      token: "WIF2",
      buyPrice: await price("WIF2", 0.9),
      sellPrice: await price("WIF2", 1.02),
      amount: "50",
      repeat: true,
    });
    expect(open.kind).toBe("grid");
    expect(open.steps).toHaveLength(2);
    await sendAll(open);
    const grid = await until("the grid", () =>
      reads.selectFrom("grid").select(["id", "holdsToken"]).where("owner", "=", lower(human.address)).where("id", ">", after).executeTakeFirst(),
    );
    expect(grid.holdsToken).toBe(true);

    await sendAll(await prepared("grid", { action: "setRepeat", id: grid.id.toString(), repeat: false }));
    await until("repeat off", async () => (await reads.selectFrom("grid").select("repeat").where("id", "=", grid.id).executeTakeFirst())?.repeat === false);
    expect((await prepare("grid", { action: "collect", id: grid.id.toString() })).body.code).toBe("NOTHING_TO_COLLECT");

    // Push the price over the sell line (the market simulator pulls it back, so push, then poke at once).
    const pool = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "poolOf", args: [token] });
    await until(
      "the grid's sell",
      async () => {
        if ((await chain.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "collectable", args: [grid.id] })) > 0n) return true;
        const [, reserveUsdg] = await chain.readContract({ address: pool, abi: poolAbi, functionName: "getReserves" });
        const push = reserveUsdg / 25n; // about +8% on the price
        await write(human, { address: usdg(), abi: testTokenAbi, functionName: "approve", args: [pool, push] });
        await write(human, { address: pool, abi: poolAbi, functionName: "swap", args: [usdg(), push, 0n, human.address] });
        await walletOf(human)
          .writeContract({ address: strategy, abi: gridStrategyAbi, functionName: "poke", args: [grid.id] })
          .catch(() => undefined);
        return false;
      },
      40_000,
    );
    const before = await balanceOf(usdg(), human.address);
    const owed = await chain.readContract({ address: strategy, abi: gridStrategyAbi, functionName: "collectable", args: [grid.id] });
    const collect = await prepared("grid", { action: "collect", id: grid.id.toString() });
    expect(collect.steps).toHaveLength(1);
    await sendAll(collect);
    expect(await balanceOf(usdg(), human.address)).toBe(before + owed);
    await until("the collected grid in accounts/{owner}", async () => {
      const g = (await accountOf(human.address)).grids.find((x: any) => x.id === grid.id.toString());
      return g && g.trades >= 2 && BigInt(g.collectedUnits) === owed && g.repeat === false;
    });
    await activity.seen(["grid.opened", "grid.repeat", "grid.traded", "grid.collected"], grid.id.toString());
    await sendAll(await prepared("grid", { action: "close", id: grid.id.toString() }));
  });
});

describe("ladder-strategy: setRepeat, collect after a close with mask 0", () => {
  it("from the wallet", async () => {
    const activity = await feed(human.address);
    const after = (await chain.readContract({ address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "nextId" })) - 1n; // the chain's
    const legs = [
      { buyPrice: await price("WIF2", 0.8), sellPrice: await price("WIF2", 0.9), amount: "15" },
      { buyPrice: await price("WIF2", 0.7), sellPrice: await price("WIF2", 0.8), amount: "6" },
    ];
    const before = await balanceOf(usdg(), human.address);
    await sendAll(await prepared("ladder-strategy", { action: "open", token: "WIF2", legs, repeat: true }));
    const ladder = await until("the ladder", () =>
      reads.selectFrom("ladder").select(["id"]).where("owner", "=", lower(human.address)).where("id", ">", after).executeTakeFirst(),
    );
    expect(await balanceOf(usdg(), human.address)).toBe(before - 21_000_000n);
    await sendAll(await prepared("ladder-strategy", { action: "setRepeat", id: ladder.id.toString(), mask: 1 }));
    await sendAll(await prepared("ladder-strategy", { action: "close", id: ladder.id.toString(), mask: 0 }));
    expect(await balanceOf(usdg(), human.address)).toBe(before - 21_000_000n);
    await until(
      "the closed ladder",
      async () => (await reads.selectFrom("ladder").select("state").where("id", "=", ladder.id).executeTakeFirst())?.state === "closed",
    );
    // Closed with mask 0, its funds wait for collect; the other actions are refused.
    expect((await prepare("ladder-strategy", { action: "setRepeat", id: ladder.id.toString(), mask: 3 })).body.code).toBe("LADDER_CLOSED");
    expect((await prepare("ladder-strategy", { action: "collect", id: ladder.id.toString(), mask: 1 })).body.code).toBe("NOTHING_TO_COLLECT");
    await sendAll(await prepared("ladder-strategy", { action: "collect", id: ladder.id.toString(), mask: 3 }));
    expect(await balanceOf(usdg(), human.address)).toBe(before);
    await until("the collected ladder in accounts/{owner}", async () => {
      const l = (await accountOf(human.address)).ladderStrategies.find((x: any) => x.id === ladder.id.toString());
      return l && l.state === "closed" && l.repeatMask === 1 && BigInt(l.collectedUsdgUnits) === 21_000_000n;
    });
    await activity.seen(["ladder.opened", "ladder.repeat", "ladder.closed", "ladder.collected"], ladder.id.toString());
  });
});

describe("ladder-strategy via account (bundle kind account-agent-call)", () => {
  it("the agent key opens, sets repeat and collects through the owner's agent account; the owner closes; refusals name the account's numbers", async () => {
    // No account lets this key trade.
    const none = await prepare(
      "ladder-strategy",
      { action: "open", token: "WIF2", legs: [{ buyPrice: await price("WIF2", 0.8), sellPrice: await price("WIF2", 0.9), amount: "20" }], via: "account" },
      nobody,
    );
    expect([none.status, none.body.code]).toEqual([422, "NO_AGENT_ACCOUNT"]);

    // The owner (12) has an account traded by the agent key (13) (prepare-money-safety.test.ts makes the same
    // one), with 100 USDG of budget left, and funds it.
    const account = await ensureAgentAccount();
    const held = await balanceOf(usdg(), account);
    await write(human, { address: usdg(), abi: testTokenAbi, functionName: "transfer", args: [account, 60_000_000n] });
    const activity = await feed(account);

    const leg = (buy: number, sell: number, amount: string) =>
      Promise.all([price("WIF2", buy), price("WIF2", sell)]).then(([buyPrice, sellPrice]) => ({ buyPrice, sellPrice, amount }));
    const refusals: [unknown[], string, Record<string, unknown>][] = [
      [[await leg(0.4, 0.9, "20")], "ACCOUNT_FLOOR", { part: 1 }],
      [[await leg(0.8, 2.5, "20")], "ACCOUNT_CEILING", { part: 1 }],
      [[await leg(0.8, 0.9, "20"), await leg(0.7, 0.8, "90")], "ACCOUNT_BUDGET", { minimum: "110000000", unit: "USDG", limitUsd: 100 }],
      [[await leg(0.8, 0.9, "20"), await leg(0.8, 0.82, "10")], "ACCOUNT_SPREAD", { part: 2 }],
    ];
    for (const [legs, code, details] of refusals) {
      const r = await prepare("ladder-strategy", { action: "open", token: "WIF2", legs, via: "account" }, agentKey.address);
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([422, code]);
      expect(r.body.details).toMatchObject(details);
      // A price bound: the part's line (priceUsd) and the bound it broke (limitUsd), USDG per whole token.
      if (code === "ACCOUNT_SPREAD") expect(r.body.details.priceUsd).toBeLessThan(r.body.details.limitUsd);
    }
    // Another account named: not this key's.
    const wrong = await prepare(
      "ladder-strategy",
      { action: "open", token: "WIF2", legs: [await leg(0.8, 0.9, "20")], via: "account", account: d.contracts.ladderStrategy },
      agentKey.address,
    );
    expect(wrong.body.code).toBe("NO_AGENT_ACCOUNT");

    const after = (await chain.readContract({ address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "nextId" })) - 1n; // the chain's
    const legs = [await leg(0.8, 0.9, "20"), await leg(0.7, 0.8, "10")];
    const open = await prepared("ladder-strategy", { action: "open", token: "WIF2", legs, via: "account", repeat: true }, agentKey.address);
    expect(open.kind).toBe("account-agent-call");
    expect(open.steps.map((s) => s.to)).toEqual([account]);
    expect(open.walletSendCalls.atomicRequired).toBe(false);
    const committed = await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" });
    expect(open.params).toMatchObject({
      via: "account",
      account,
      total: "30000000",
      accountLimits: { budgetUsdg: (committed + 100_000_000n).toString(), committedUsdg: committed.toString() },
    });
    await sendAll(open, agentKey);
    expect(await chain.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" })).toBe(committed + 30_000_000n);
    expect(await balanceOf(usdg(), account)).toBe(held + 30_000_000n);
    const ladder = await until("the account's ladder", () =>
      reads.selectFrom("ladder").select(["id", "owner"]).where("owner", "=", lower(account)).where("id", ">", after).executeTakeFirst(),
    );

    // The agent key's own wallet has no ladder: a wallet-mode action on the account's ladder is refused.
    expect((await prepare("ladder-strategy", { action: "setRepeat", id: ladder.id.toString(), mask: 1 }, agentKey.address)).body.code).toBe("NOT_YOUR_LADDER");
    await sendAll(await prepared("ladder-strategy", { action: "setRepeat", id: ladder.id.toString(), mask: 1, via: "account" }, agentKey.address), agentKey);
    // The owner may always stop a ladder through its account.
    const close = await prepared("ladder-strategy", { action: "close", id: ladder.id.toString(), mask: 0, via: "account", account }, human.address);
    expect(close.kind).toBe("account-agent-call");
    await sendAll(close, human);
    await sendAll(await prepared("ladder-strategy", { action: "collect", id: ladder.id.toString(), mask: 2, via: "account" }, agentKey.address), agentKey);
    // Payouts go back to the account, never to the agent key.
    expect(await balanceOf(usdg(), account)).toBe(held + 60_000_000n);
    expect(
      await chain.readContract({ address: d.contracts.ladderStrategy!, abi: ladderStrategyAbi, functionName: "ladders", args: [ladder.id] }),
    ).toMatchObject({ owner: account, closed: true });

    await until("the account's ladder in accounts/{account}", async () => {
      const l = (await accountOf(account)).ladderStrategies.find((x: any) => x.id === ladder.id.toString());
      return l && l.state === "closed" && l.repeatMask === 1 && BigInt(l.collectedUsdgUnits) === 30_000_000n;
    });
    await activity.seen(["ladder.opened", "ladder.repeat", "ladder.closed", "ladder.collected"], ladder.id.toString());
    // The budget counts what was committed: 30 of 100 USDG used, so 80 more is refused.
    const over = await prepare("ladder-strategy", { action: "open", token: "WIF2", legs: [await leg(0.8, 0.9, "80")], via: "account" }, agentKey.address);
    expect(over.body).toMatchObject({ code: "ACCOUNT_BUDGET", details: { minimum: "80000000", limitUsd: 70 } });
  });

  it("is refused 404 ACCOUNTS_DISABLED while agent accounts are off: the chain's factory switch, or the service's AGENT_ACCOUNTS (workers)", async () => {
    const factory = d.contracts.agentAccountFactory!;
    const legs = [{ buyPrice: await price("WIF2", 0.8), sellPrice: await price("WIF2", 0.9), amount: "20" }];
    const body = { action: "open", token: "WIF2", legs, via: "account" };
    await write(admin, { address: factory, abi: agentAccountFactoryAbi, functionName: "setEnabled", args: [false] });
    try {
      const off = await prepare("ladder-strategy", body, agentKey.address);
      expect([off.status, off.body.code]).toEqual([404, "ACCOUNTS_DISABLED"]);
      // From the wallet, nothing changes.
      expect((await prepare("ladder-strategy", { ...body, via: "wallet" }, human.address)).status).toBe(200);
    } finally {
      await write(admin, { address: factory, abi: agentAccountFactoryAbi, functionName: "setEnabled", args: [true] });
    }

    // A worker whose service has AGENT_ACCOUNTS=off, behind the API's job client.
    const bullPrefix = `${prefix}:bull`;
    const jobs = createJobClient({ redisUrl: REDIS_URL, prefix: bullPrefix });
    const q = t.deps;
    const worker = new Worker(
      PREPARE_QUEUE,
      prepareProcessor({
        db,
        reads,
        deployments: d,
        client: q.client!,
        now: q.now,
        baseUrl: q.baseUrl!,
        logger: q.logger,
        agentAccounts: false,
        viewsSchema: stack.viewsSchema,
      }),
      { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: bullPrefix },
    );
    try {
      await worker.waitUntilReady();
      const queued = testApp({ db, redis, reads, deployments: d, jobs, rateLimit: { keyPrefix: `${prefix}:rl2` } });
      const path = "/v1/agent/prepare/ladder-strategy";
      const res = await queued.app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ owner: agentKey.address, ...body }),
      });
      const answer = (await res.json()) as any;
      expect(validator.errors("post", path, res.status, answer)).toEqual([]);
      expect([res.status, answer.code]).toEqual([404, "ACCOUNTS_DISABLED"]);
      expect((await prepare("ladder-strategy", body, agentKey.address)).status).toBe(200);
    } finally {
      await worker.close();
      await jobs.close();
    }
  });
});
