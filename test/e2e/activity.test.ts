// The account and activity routes over the running system: the API in-process, reading the live
// indexer's projections; an agent (test wallet 2) takes a baseline, sends a deposit on the devnet,
// and polls its cursor until the changes arrive, once and in order. The account answer matches the
// chain for the seeded wallets (5-9).
import type { Kysely } from "kysely";
import { getAddress, parseUnits, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { basketPoolAbi, gridStrategyAbi, ladderStrategyAbi, limitOrderHookAbi, mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import { createRedis } from "../../adapters/redis.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { CURSOR_TTL_MS } from "../../contract/accounts.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { ResponseValidator } from "../helpers/openapi-validate.js";
import { DEAD_REDIS_URL, json, randomPrefix, testApp } from "../api/support.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { publicClientAt, testAccount, writeAt } from "../helpers/wallets.js";

const stack = inject("stack");

type Change = {
  id: string;
  kind: string;
  subject: string;
  contract: string;
  data: Record<string, unknown>;
  txHash: string;
  block: number;
  blockHash: string;
  logIndex: number;
  time: string;
};
type Activity = { cursor: string; since: string; now: string; after: string; changes: Change[]; more: boolean; reorged: boolean };

let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let deployments: Deployments;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const publicClient = publicClientAt(stack.rpcUrl);

beforeAll(async () => {
  opened = await openStackApp(stack, { prefix, chainClient: false, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, d: deployments, app: t, validator } = opened);
  t.clock.set(new Date());
});

afterAll(() => opened?.close());

const activityPath = (owner: string, cursor?: string) => `/v1/agent/accounts/${owner}/activity${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`;

async function activity(owner: string, cursor?: string): Promise<Activity> {
  const response = await t.app.request(activityPath(owner, cursor));
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await json(response);
  expect(validator.errors("get", activityPath(owner, cursor), 200, body)).toEqual([]);
  return body.data as Activity;
}

async function account(owner: string) {
  const response = await t.app.request(`/v1/agent/accounts/${owner}`);
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await json(response);
  // Exactly what the OpenAPI document describes (no field more or less).
  expect(validator.errors("get", `/v1/agent/accounts/${owner}`, 200, body)).toEqual([]);
  return body.data;
}

describe("an agent following its wallet's activity", () => {
  const agent = testAccount(2);
  const vault = () => deployments.vaults.find((v) => v.family === "merged" && v.agent)!;
  const amount = parseUnits("125", 6);

  let baseline: Activity;
  const seen: Change[] = [];
  /** Each poll: the cursor it was given and its answer. */
  const polls: { cursor: string; answer: Activity }[] = [];
  let depositTx: Hex;
  let depositId: bigint;

  it("takes a baseline: no changes, a cursor, since = now", async () => {
    baseline = await activity(agent.address);
    expect(baseline.changes).toEqual([]);
    expect(baseline).toMatchObject({ more: false, reorged: false });
    expect(baseline.cursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(baseline.since).toBe(baseline.now);
  });

  it("sends a deposit and sees exactly its changes, once and in order, within seconds", async () => {
    const v = vault();
    await writeAt(stack.rpcUrl, publicClient, agent, {
      address: deployments.contracts.usdg!,
      abi: testTokenAbi,
      functionName: "approve",
      args: [v.address, amount],
    });
    const receipt = await writeAt(stack.rpcUrl, publicClient, agent, {
      address: v.address,
      abi: mergedVaultAbi,
      functionName: "requestDeposit",
      args: [amount, agent.address, 0n],
    });
    depositTx = receipt.transactionHash;
    depositId = await publicClient.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "lastDepositId", blockNumber: receipt.blockNumber });
    const sent = Date.now();

    // Poll until the request and its settlement (the devnet's keeper settles within seconds) are in.
    let cursor = baseline.cursor;
    let requestedAfterMs: number | undefined;
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      const answer = await activity(agent.address, cursor);
      polls.push({ cursor, answer });
      expect(answer.reorged).toBe(false);
      seen.push(...answer.changes);
      if (requestedAfterMs === undefined && seen.some((c) => c.kind === "vault.deposit.requested")) requestedAfterMs = Date.now() - sent;
      cursor = answer.cursor;
      if (seen.some((c) => c.kind === "vault.deposit.settled") && !answer.more) break;
      if (!answer.more) await new Promise((r) => setTimeout(r, 200));
    }
    expect(requestedAfterMs, "the request's change arrived").toBeDefined();
    expect(requestedAfterMs!).toBeLessThan(5_000);

    // Exactly the deposit's changes: requested, then the shares minted and the settlement.
    expect(seen.map((c) => c.kind)).toEqual(["vault.deposit.requested", "vault.shares", "vault.deposit.settled"]);
    const ids = seen.map((c) => BigInt(c.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    const [requested, shares, settled] = seen as [Change, Change, Change];
    expect(requested).toMatchObject({
      subject: getAddress(v.address),
      contract: getAddress(v.address),
      txHash: depositTx,
      block: Number(receipt.blockNumber),
      blockHash: receipt.blockHash,
      data: { id: depositId.toString(), assets: amount.toString(), minShares: "0", receiver: agent.address },
    });
    expect(new Date(requested.time).getTime()).toBeGreaterThan(Date.now() - 120_000);
    expect(shares.data).toMatchObject({ counterparty: "0x0000000000000000000000000000000000000000" });
    expect(settled.data).toMatchObject({ id: depositId.toString(), assets: amount.toString(), shares: shares.data.delta });
    const balance = await publicClient.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "balanceOf", args: [agent.address] });
    expect(BigInt(shares.data.delta as string)).toBe(balance);
  });

  it("a poll with the newest cursor sees nothing new; retrying an old cursor answers the same", async () => {
    const last = polls[polls.length - 1]!;
    const nothing = await activity(agent.address, last.answer.cursor);
    expect(nothing).toMatchObject({ changes: [], more: false, reorged: false, after: seen[seen.length - 1]!.id });
    // The poll that brought the last change, again: the same changes and the same new cursor.
    const lastWithChanges = [...polls].reverse().find((p) => p.answer.changes.length > 0)!;
    const retried = await activity(agent.address, lastWithChanges.cursor);
    expect(retried.changes).toEqual(lastWithChanges.answer.changes);
    expect(retried.cursor).toBe(lastWithChanges.answer.cursor);
    expect(retried.since).toBe(lastWithChanges.answer.since);
    // The baseline cursor is still valid and answers everything since, with the same ids.
    expect((await activity(agent.address, baseline.cursor)).changes).toEqual(seen);
  });

  it("the account shows the deposit: shares equal balanceOf, the queue entry settled", async () => {
    const v = vault();
    const data = await account(agent.address);
    const balance = await publicClient.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "balanceOf", args: [agent.address] });
    const position = data.vaults.find((p: { vault: string }) => p.vault === getAddress(v.address));
    expect(position).toMatchObject({ family: "merged", sharesUnits: balance.toString(), asset: { symbol: "USDG", decimals: 6 } });
    expect(Number(position.valueUnits)).toBeGreaterThan(0);
    expect(Math.abs(position.valueUsd - 125)).toBeLessThan(125 * 0.05);
    expect(data.depositRequests).toContainEqual(
      expect.objectContaining({
        vault: getAddress(v.address),
        id: depositId.toString(),
        state: "settled",
        assets: "125",
        assetsUnits: "125000000",
        sharesUnits: balance.toString(),
      }),
    );
  });

  it("refuses another owner's cursor, an expired one and garbage with 404 CURSOR_NOT_FOUND", async () => {
    const other = testAccount(3).address;
    const latest = polls[polls.length - 1]!.answer.cursor;
    for (const path of [activityPath(other, latest), activityPath(agent.address, "certainly-not-a-cursor"), activityPath(agent.address, "A".repeat(32))]) {
      const response = await t.app.request(path);
      expect(response.status, path).toBe(404);
      expect(await json(response)).toEqual({ error: "Unknown or expired cursor", code: "CURSOR_NOT_FOUND" });
    }
    const malformed = await t.app.request(activityPath(agent.address, "x".repeat(200)));
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).code).toBe("INVALID_REQUEST");

    t.clock.advance(CURSOR_TTL_MS + 1000);
    try {
      for (const cursor of [latest, baseline.cursor]) {
        const expired = await t.app.request(activityPath(agent.address, cursor));
        expect(expired.status).toBe(404);
        expect((await json(expired)).code).toBe("CURSOR_NOT_FOUND");
      }
      // A new baseline works at once.
      expect((await activity(agent.address)).changes).toEqual([]);
    } finally {
      t.clock.advance(-(CURSOR_TTL_MS + 1000));
    }
  });
});

describe("GET /v1/agent/accounts/{owner} for the seeded wallets", () => {
  const seeded = [5, 6, 7, 8, 9].map((i) => testAccount(i).address);

  it("matches the chain: vault shares, basket balances, orders, grids and ladder strategies", async () => {
    const kinds = new Set<string>();
    for (const owner of seeded) {
      const data = await account(owner);
      expect(data.owner).toBe(owner);

      // Every vault with shares on chain is listed with exactly those shares, and no other.
      const onChain = new Map<string, bigint>();
      for (const v of deployments.vaults) {
        const shares = await publicClient.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "balanceOf", args: [owner] });
        if (shares > 0n) onChain.set(getAddress(v.address), shares);
      }
      const listed = new Map<string, bigint>(data.vaults.map((p: { vault: string; sharesUnits: string }) => [p.vault, BigInt(p.sharesUnits)]));
      expect(listed).toEqual(onChain);
      if (onChain.size) kinds.add("vaults");

      for (const b of data.baskets as { basket: Address; balanceUnits: string }[]) {
        expect(await publicClient.readContract({ address: b.basket, abi: basketPoolAbi, functionName: "balanceOf", args: [owner] })).toBe(
          BigInt(b.balanceUnits),
        );
        kinds.add("baskets");
      }
      for (const basket of deployments.baskets) {
        const balance = await publicClient.readContract({ address: basket.address, abi: basketPoolAbi, functionName: "balanceOf", args: [owner] });
        if (balance > 0n) expect(data.baskets.map((b: { basket: string }) => b.basket)).toContain(getAddress(basket.address));
      }

      for (const o of data.limitOrders as { id: string; token: { address: Address }; side: string; amountInUnits: string; priceX18: string }[]) {
        const order = await publicClient.readContract({
          address: deployments.contracts.limitOrderHook!,
          abi: limitOrderHookAbi,
          functionName: "orders",
          args: [BigInt(o.id)],
        });
        expect({ owner: order.owner, token: order.token, sell: order.sellToken, amountIn: order.amountIn, price: order.priceX18 }).toEqual({
          owner,
          token: o.token.address,
          sell: o.side === "sell",
          amountIn: BigInt(o.amountInUnits),
          price: BigInt(o.priceX18),
        });
        kinds.add("limitOrders");
      }
      for (const g of data.grids as { id: string; token: { address: Address }; amountUsdgUnits: string; buyPriceX18: string; sellPriceX18: string }[]) {
        const grid = await publicClient.readContract({
          address: deployments.contracts.gridStrategy!,
          abi: gridStrategyAbi,
          functionName: "grids",
          args: [BigInt(g.id)],
        });
        expect({ owner: grid.owner, token: grid.token, amount: grid.amountUsdg, buy: grid.buyPriceX18, sell: grid.sellPriceX18 }).toEqual({
          owner,
          token: g.token.address,
          amount: BigInt(g.amountUsdgUnits),
          buy: BigInt(g.buyPriceX18),
          sell: BigInt(g.sellPriceX18),
        });
        kinds.add("grids");
      }
      for (const l of data.ladderStrategies as {
        id: string;
        token: { address: Address };
        totalUnits: string;
        parts: { part: number; amountUnits: string; buyPriceX18: string; sellPriceX18: string }[];
      }[]) {
        const ladder = await publicClient.readContract({
          address: deployments.contracts.ladderStrategy!,
          abi: ladderStrategyAbi,
          functionName: "ladders",
          args: [BigInt(l.id)],
        });
        const legs = await publicClient.readContract({
          address: deployments.contracts.ladderStrategy!,
          abi: ladderStrategyAbi,
          functionName: "legsOf",
          args: [BigInt(l.id)],
        });
        expect({ owner: ladder.owner, token: ladder.token, total: ladder.total }).toEqual({ owner, token: l.token.address, total: BigInt(l.totalUnits) });
        expect(l.parts.map((p) => [p.part, BigInt(p.amountUnits), BigInt(p.buyPriceX18), BigInt(p.sellPriceX18)])).toEqual(
          legs.map((leg, i) => [i + 1, leg.amount, leg.buyPriceX18, leg.sellPriceX18]),
        );
        kinds.add("ladderStrategies");
      }
    }
    // The seeded history (deterministic) gives these wallets every kind of position.
    expect([...kinds].sort()).toEqual(["baskets", "grids", "ladderStrategies", "limitOrders", "vaults"]);
  });

  it("an owner with nothing answers 200 with empty lists", async () => {
    const data = await account("0x000000000000000000000000000000000000dEaD");
    expect(data).toMatchObject({ vaults: [], depositRequests: [], withdrawalRequests: [], limitOrders: [], grids: [], ladderStrategies: [], baskets: [] });
  });

  it("keeps answering 200 when the app's Redis is down", async () => {
    const deadRedis = createRedis({ url: DEAD_REDIS_URL });
    try {
      const { app } = testApp({ db, redis: deadRedis, reads, deployments, rateLimit: { keyPrefix: `${prefix}:rl:dead` } });
      const response = await app.request(`/v1/agent/accounts/${seeded[0]}`);
      expect(response.status).toBe(200);
    } finally {
      deadRedis.disconnect();
    }
  });
});
