// Atomic batches reach the report card. On a devnet of its own (it moves the clock a week): an EIP-7702
// account delegated to the ERC-7821 BatchExecutor sends a vault deposit bundle (approve, then deposit) as one
// `execute` transaction to itself, and an ERC-4337 SmartAccount sends a market order bundle (approve, then
// order) as one user operation through the EntryPoint. Both go out through the typed client's sendPrepared,
// whose wallet_sendCalls carries atomicRequired. The indexer records each inner service call with its own
// target and calldata, from the account that made it; grading matches them to the filings (owner, target,
// exact calldata) and grades them by the usual rules: the order a day after its fill, the deposit a week
// after its shares were issued. A ladder (two orders) sent as one batch matches its filing too.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { formatUnits, parseUnits, type Address, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { sendPrepared, type PrepareResult } from "../../client/index.js";
import type { GradingSummary } from "../../usecases/report-card/run-grading.js";
import { gradingProcessor } from "../../workers/processors/grading.js";
import { randomPrefix, type testApp } from "../api/support.js";
import { delegatedWallet, smartAccountWallet } from "../helpers/batch-wallets.js";
import { until as waitUntil } from "../helpers/http.js";
import { startStack, type StartedStack } from "../helpers/stack.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { testAccount, tokenIn, walletAt } from "../helpers/wallets.js";

let stack: StartedStack;
let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
const prefix = randomPrefix();
const admin = testAccount(10);
const eoa = testAccount(16); // delegates to the BatchExecutor (EIP-7702)
const smartOwner = testAccount(17); // owns the SmartAccount
const bundler = testAccount(18); // sends handleOps
let delegated: Awaited<ReturnType<typeof delegatedWallet>>;
let smart: Awaited<ReturnType<typeof smartAccountWallet>>;

const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const until = <T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, read, ms, 300);
const grade = async () => (await gradingProcessor({ db, reads, now: t.clock.now, logger: t.deps.logger })({} as never)) as GradingSummary;

beforeAll(async () => {
  stack = await startStack({ historyDays: 2 });
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, d, chain, app: t } = opened);
  t.clock.set(new Date(Number((await chain.getBlock()).timestamp) * 1000));
  delegated = await delegatedWallet(stack.rpcUrl, chain, eoa, d);
  smart = await smartAccountWallet(stack.rpcUrl, chain, smartOwner, bundler, d);
  for (const to of [eoa.address, smart.address]) {
    const hash = await walletAt(stack.rpcUrl, admin).writeContract({
      address: d.contracts.usdg!,
      abi: testTokenAbi,
      functionName: "mint",
      args: [to, parseUnits("5000", 6)],
    });
    expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
  }
}, 600_000);

afterAll(async () => {
  await opened?.close();
  await stack?.stop();
}, 120_000);

/** A prepare through the API, filed at the chain's time (a mined call matches filings of the 10 minutes before its block). */
async function prepared(owner: Address, kind: string, body: Record<string, unknown>): Promise<PrepareResult> {
  const kept = t.clock.now();
  t.clock.set(new Date(Number((await chain.getBlock()).timestamp) * 1000));
  const res = await Promise.resolve(
    t.app.request(`/v1/agent/prepare/${kind}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ owner, ...body }) }),
  ).finally(() => t.clock.set(kept));
  const answer = (await res.json()) as { data: PrepareResult };
  expect(res.status, `${kind}: ${JSON.stringify(answer).slice(0, 500)}`).toBe(200);
  return answer.data;
}

async function indexedTime(): Promise<number> {
  const row = await reads.selectFrom("activity").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst();
  const swap = await reads.selectFrom("poolSwap").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst();
  return Math.max(Number(row?.t ?? 0), Number(swap?.t ?? 0));
}

async function moveClock(seconds: number) {
  const before = (await chain.getBlock()).timestamp;
  await chain.request({ method: "evm_increaseTime" as never, params: [seconds] as never });
  await chain.request({ method: "evm_mine" as never, params: [] as never });
  await until(`the indexer past +${seconds} s`, async () => (await indexedTime()) >= Number(before) + seconds, 120_000);
}

type Action = { kind: string; state: string; reason: string | null; hit: boolean | null; note: string; signed: boolean };
async function actionOf(owner: Address, kind: string): Promise<Action> {
  const res = await t.app.request(`/v1/agent/report-card/${owner}`);
  const body = (await res.json()) as { data: { agents: { name: string | null; actions: Action[] }[] } };
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  const action = body.data.agents.flatMap((a) => a.actions).find((a) => a.kind === kind);
  expect(action, `${owner}'s ${kind} on the card`).toBeDefined();
  return action!;
}

describe("atomic batches on the report card", () => {
  let deposit: PrepareResult;
  let order: PrepareResult;

  it("a 7702 account's deposit bundle goes out as one ERC-7821 batch; the indexer records the deposit call from the account", async () => {
    expect(delegated.code).toBe(`0xef0100${d.contracts.batchExecutor!.slice(2).toLowerCase()}`);
    const vault = d.vaults.find((v) => v.family === "merged" && v.agent)!;
    deposit = await prepared(eoa.address, "vault-deposit", { vault: vault.address, amount: "50", agentTag: "gamma" });
    expect(deposit.steps).toHaveLength(2);
    expect(deposit.walletSendCalls.atomicRequired).toBe(true);
    const sent = await sendPrepared(delegated.wallet, chain, deposit, { allow: d });
    expect([sent.method, sent.atomic, sent.receipts.length]).toEqual(["wallet_sendCalls", true, 1]);
    expect(delegated.requests.map((r) => r.atomicRequired)).toEqual([true]);
    const tx = await chain.getTransaction({ hash: sent.receipts[0]!.transactionHash });
    expect([lower(tx.from), lower(tx.to!)]).toEqual([lower(eoa.address), lower(eoa.address)]);

    const calls = await until("the deposit's inner call indexed", async () => {
      const rows = await reads.selectFrom("executedCall").selectAll().where("txHash", "=", tx.hash).execute();
      return rows.length ? rows : null;
    });
    // Only the service call (the approval goes to the token), with its own target and exact calldata.
    expect(calls.map((c) => [c.id, c.from, c.to, c.input, c.via])).toEqual([
      [`${tx.hash}:1`, lower(eoa.address), lower(deposit.steps[1]!.to), lower(deposit.steps[1]!.data), "account"],
    ]);
  });

  it("a 4337 smart account's order bundle goes out as one user operation through the EntryPoint; the indexer records the order call from the smart account", async () => {
    order = await prepared(smart.address, "limit-order", { token: "WETH", side: "buy", amount: "20", type: "market", agentTag: "gamma" });
    expect(order.walletSendCalls.atomicRequired).toBe(true);
    const sent = await sendPrepared(smart.wallet, chain, order, { allow: d }).catch((e: Error) => {
      throw new Error(`${e.message}; the operation's revert data: ${smart.failures.join(", ")}`);
    });
    expect([sent.method, sent.receipts.length]).toEqual(["wallet_sendCalls", 1]);
    const tx = await chain.getTransaction({ hash: sent.receipts[0]!.transactionHash });
    expect([lower(tx.from), lower(tx.to!)]).toEqual([lower(bundler.address), lower(d.contracts.entryPoint!)]);

    const calls = await until("the order's inner call indexed", async () => {
      const rows = await reads.selectFrom("executedCall").selectAll().where("txHash", "=", tx.hash).execute();
      return rows.length ? rows : null;
    });
    expect(calls.map((c) => [c.from, c.to, c.input, c.via])).toEqual([
      [lower(smart.address), lower(order.steps[1]!.to), lower(order.steps[1]!.data), "entry-point"],
    ]);
    // The bundler made no call of its own.
    expect(await reads.selectFrom("executedCall").select("id").where("from", "=", lower(bundler.address)).execute()).toEqual([]);
  });

  it("both actions reach the report card as executed and are graded by the usual rules", async () => {
    const first = await grade();
    expect(first.matched).toBe(2);
    const o = await actionOf(smart.address, "limit-order");
    expect([o.signed, o.state, o.reason]).toEqual([true, "waiting", "day"]);
    expect((await actionOf(eoa.address, "vault-deposit")).signed).toBe(true);

    // A day after the fill: the market order is graded.
    await moveClock(86_400);
    await grade();
    const graded = await actionOf(smart.address, "limit-order");
    expect([graded.state, graded.reason, typeof graded.hit]).toEqual(["graded", null, "boolean"]);
    expect(graded.note).toMatch(/Bought at .* a day after the last fill/);

    // The keeper settles the deposit; a week after its shares were issued it is graded by the share price.
    await until(
      "the deposit settled",
      async () => {
        await grade();
        const a = await actionOf(eoa.address, "vault-deposit");
        return a.reason === "week" || a.state === "graded";
      },
      90_000,
    );
    await moveClock(7 * 86_400);
    await grade();
    const dep = await actionOf(eoa.address, "vault-deposit");
    expect([dep.state, dep.reason, typeof dep.hit]).toEqual(["graded", null, "boolean"]);
    expect(dep.note).toMatch(/Share price .* 7 days later/);
  });
  it("a bundle with several actions (a ladder of two orders) in one batch matches its filing: both calls share the transaction", async () => {
    const price = await chain.readContract({
      address: d.contracts.markets!,
      abi: marketRegistryAbi,
      functionName: "priceX18",
      args: [tokenIn(d, "WETH").address],
    });
    const at = (f: bigint) => formatUnits((price * f) / 100n, 18);
    const ladder = await prepared(eoa.address, "ladder", {
      token: "WETH",
      side: "buy",
      orders: [
        { amount: "20", price: at(70n) },
        { amount: "20", price: at(60n) },
      ],
      agentTag: "delta",
    });
    expect(ladder.steps.filter((s) => !s.data.startsWith("0x095ea7b3"))).toHaveLength(2);
    const sent = await sendPrepared(delegated.wallet, chain, ladder, { allow: d });
    expect(sent.receipts).toHaveLength(1);
    const hash = sent.receipts[0]!.transactionHash;
    await until(
      "the ladder's two calls indexed",
      async () => (await reads.selectFrom("executedCall").select("id").where("txHash", "=", hash).execute()).length === 2,
    );
    await grade();
    const action = await actionOf(eoa.address, "ladder");
    expect([action.signed, action.state, action.reason]).toEqual([true, "waiting", "fill"]);
  });
});
