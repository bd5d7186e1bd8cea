// The report card's call-trace path (issue 51): on anvil, whose debug_trace* methods have the callTracer that
// the devnet's EDR lacks, the indexer runs with CALL_TRACES=on and records each executed call from its own
// successful trace (src/call-traces.ts), not from events (those tests run on EDR: report-card-liars and
// report-card-batches). Shown here, on a stack of its own (test/helpers/anvil-stack.ts):
// - a 7702 delegate that ignores its calldata (a zero share transfer instead) earns no call for the bundle;
// - a 7702 delegate that deposits half: the call recorded is the half deposit as the chain ran it, which
//   matches no filing;
// - an ERC-4337 operation whose deposit ran but whose batch then reverted (inside handleOps, which succeeds)
//   records nothing: the deposit's frame sits inside a reverted one;
// - an honest 7702 batch carrying two filed bundles: both calls recorded once each (no event credits them
//   again), at their places in the call tree, and both filings matched in call order; a direct call too.
import type { Kysely } from "kysely";
import { decodeFunctionData, encodeFunctionData, parseEther, parseUnits, type Address, type Hex, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergedVaultAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { sendPrepared } from "../../client/index.js";
import type { GradingSummary } from "../../usecases/report-card/run-grading.js";
import { gradingProcessor } from "../../workers/processors/grading.js";
import { randomPrefix, type testApp } from "../api/support.js";
import { startAnvilStack, type AnvilStack } from "../helpers/anvil-stack.js";
import { delegatedWallet, smartAccountWallet } from "../helpers/batch-wallets.js";
import { until as waitUntil } from "../helpers/http.js";
import { deployLyingDelegates } from "../helpers/lying-delegates.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { reportCardCalls } from "../helpers/report-card-calls.js";
import { mintAt, sendEthAt, sendStepsAt, testAccount, walletAt } from "../helpers/wallets.js";

const prefix = randomPrefix();
const admin = testAccount(10);
const ignorer = testAccount(40); // delegates to IgnoringDelegate
const halver = testAccount(41); // delegates to HalvingDelegate
const smartOwner = testAccount(42);
const bundler = testAccount(43);
const honest = testAccount(44); // delegates to the devnet's BatchExecutor

let stack: AnvilStack;
let opened: StackApp;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let d: Deployments;
let chain: PublicClient;
let t: ReturnType<typeof testApp>;
let mergedVault: Address;
const started = Date.now();

const lower = (a: string) => a.toLowerCase() as Hex;
const until = <T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, read, ms, 200);
const grade = async () => (await gradingProcessor({ db, reads, now: t.clock.now, logger: t.deps.logger })({} as never)) as GradingSummary;
const callsOfTx = (hash: Hex) => reads.selectFrom("executedCall").selectAll().where("txHash", "=", hash).orderBy("callIndex").execute();

beforeAll(async () => {
  stack = await startAnvilStack();
  opened = await openStackApp(stack, { prefix, app: { rateLimit: { keyPrefix: `${prefix}:rl` } } });
  ({ db, reads, d, chain, app: t } = opened);
  mergedVault = d.vaults.find((v) => v.family === "merged" && v.agent)!.address;
  for (const who of [ignorer, halver, bundler, honest]) await sendEthAt(stack.rpcUrl, chain, who.address, parseEther("5"));
  for (const who of [ignorer, halver, honest]) await mintAt(stack.rpcUrl, chain, d.contracts.usdg!, who.address, parseUnits("20000", 6));
  console.log(`anvil stack up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 300_000);

afterAll(async () => {
  await opened?.close();
  await stack?.stop();
  console.log(`report-card-traces ran ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 60_000);

const { prepared, actionsOf } = reportCardCalls(() => ({ t, chain }));

type Frame = { from: Address; to?: Address; input: Hex; type: string; error?: string; calls?: Frame[] };
type FlatFrame = Frame & { index: number; failedAbove: boolean };

/** The transaction's call tree from anvil's callTracer, depth first (trace 0 is the transaction itself). */
async function callTree(hash: Hex): Promise<FlatFrame[]> {
  const root = (await chain.request({ method: "debug_traceTransaction" as never, params: [hash, { tracer: "callTracer" }] as never })) as Frame;
  const out: FlatFrame[] = [];
  const walk = (f: Frame, failedAbove: boolean) => {
    out.push({ ...f, index: out.length, failedAbove });
    for (const c of f.calls ?? []) walk(c, failedAbove || f.error !== undefined);
  };
  walk(root, false);
  return out;
}

/** Waits until the indexer has passed `hash`'s block: a marker change sent after it (a zero share transfer) is indexed. */
async function indexedPast(hash: Hex) {
  await chain.waitForTransactionReceipt({ hash });
  const marker = await walletAt(stack.rpcUrl, bundler).sendTransaction({
    to: mergedVault,
    data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "transfer", args: [bundler.address, 0n] }),
  });
  await chain.waitForTransactionReceipt({ hash: marker });
  await until("the marker indexed", async () => (await reads.selectFrom("activity").select("position").where("txHash", "=", marker).execute()).length > 0);
}

describe("call traces: a batch cannot claim a call it did not make", () => {
  it("a delegate that ignores its calldata and transfers zero shares to itself: the deposit it carried is not recorded nor credited", async () => {
    const { ignoring } = await deployLyingDelegates(stack.rpcUrl, chain, admin, mergedVault);
    const wallet = await delegatedWallet(stack.rpcUrl, chain, ignorer, d, ignoring);
    const deposit = await prepared(ignorer.address, "vault-deposit", { vault: mergedVault, amount: "1000", agentTag: "liar" });
    const sent = await sendPrepared(wallet.wallet, chain, deposit, { allow: d });
    const hash = sent.receipts[0]!.transactionHash;
    // The chain ran one call on the vault, the zero transfer, and no deposit.
    const tree = await callTree(hash);
    expect(tree.filter((f) => f.to && lower(f.to) === lower(mergedVault)).map((f) => f.input.slice(0, 10))).toEqual(["0xa9059cbb"]);
    await indexedPast(hash);
    expect(await callsOfTx(hash)).toEqual([]);
    await grade();
    expect(await actionsOf(ignorer.address)).toEqual([]);
  });

  it("a delegate that deposits half the amount it carries: the half deposit is recorded as it ran, and matches no filing", async () => {
    const { halving } = await deployLyingDelegates(stack.rpcUrl, chain, admin, mergedVault);
    const wallet = await delegatedWallet(stack.rpcUrl, chain, halver, d, halving);
    const deposit = await prepared(halver.address, "vault-deposit", { vault: mergedVault, amount: "1000", agentTag: "liar" });
    const sent = await sendPrepared(wallet.wallet, chain, deposit, { allow: d });
    const hash = sent.receipts[0]!.transactionHash;
    const rows = await until("the half deposit recorded", async () => {
      const r = await callsOfTx(hash);
      return r.length ? r : null;
    });
    expect(rows.map((r) => [r.from, r.to, r.via])).toEqual([[lower(halver.address), lower(mergedVault), "account"]]);
    const ran = decodeFunctionData({ abi: mergedVaultAbi, data: rows[0]!.input });
    expect([ran.functionName, ran.args[0]]).toEqual(["requestDeposit", parseUnits("500", 6)]);
    expect(rows[0]!.input).not.toBe(lower(deposit.steps.at(-1)!.data));
    await grade();
    expect(await actionsOf(halver.address)).toEqual([]);
  });

  it("an ERC-4337 operation whose deposit ran, then whose batch reverted inside handleOps: nothing is recorded", async () => {
    const smart = await smartAccountWallet(stack.rpcUrl, chain, smartOwner, bundler, d);
    await mintAt(stack.rpcUrl, chain, d.contracts.usdg!, smart.address, parseUnits("2000", 6));
    const deposit = await prepared(smart.address, "vault-deposit", { vault: mergedVault, amount: "1000", agentTag: "liar" });
    // Approve, deposit, then the deposit again: the exact approval is spent, so the third call reverts the batch.
    const steps = [...deposit.steps, deposit.steps.at(-1)!].map((s) => ({ to: s.to, data: s.data, value: "0x0" }));
    const { id } = (await smart.wallet.request({
      method: "wallet_sendCalls",
      params: [{ version: "2.0.0", chainId: "0x1237", from: smart.address, atomicRequired: true, calls: steps }],
    } as never)) as { id: Hex };
    expect((await chain.waitForTransactionReceipt({ hash: id })).status).toBe("success");
    const status = (await smart.wallet.request({ method: "wallet_getCallsStatus", params: [id] } as never)) as { status: number };
    expect(status.status).toBe(500);
    // The first deposit's own frame succeeded; a frame above it reverted.
    const deposits = (await callTree(id)).filter((f) => f.to && lower(f.to) === lower(mergedVault) && lower(f.input) === lower(deposit.steps.at(-1)!.data));
    expect(deposits.map((f) => [f.error === undefined, f.failedAbove])).toEqual([
      [true, true],
      [false, true],
    ]);
    await indexedPast(id);
    expect(await callsOfTx(id)).toEqual([]);
  }, 120_000);
});

describe("call traces: honest calls", () => {
  it("two filed bundles in one 7702 batch: both calls recorded once, at their places in the call tree, and both filings matched in order", async () => {
    const wallet = await delegatedWallet(stack.rpcUrl, chain, honest, d);
    const first = await prepared(honest.address, "vault-deposit", { vault: mergedVault, amount: "600", agentTag: "honest" });
    const second = await prepared(honest.address, "vault-deposit", { vault: mergedVault, amount: "700", agentTag: "honest" });
    const calls = [...first.steps, ...second.steps].map((s) => ({ to: s.to, data: s.data, value: "0x0" }));
    const { id } = (await wallet.wallet.request({
      method: "wallet_sendCalls",
      params: [{ version: "2.0.0", chainId: "0x1237", from: honest.address, atomicRequired: true, calls }],
    } as never)) as { id: Hex };
    expect((await chain.waitForTransactionReceipt({ hash: id })).status).toBe("success");
    // Where the chain ran the two deposits: each a frame from the account to the vault, in order.
    const tree = await callTree(id);
    const at = (data: Hex) => tree.find((f) => lower(f.from) === lower(honest.address) && f.to && lower(f.input) === lower(data))!.index;
    const [i, j] = [at(first.steps[1]!.data as Hex), at(second.steps[1]!.data as Hex)];
    expect(i).toBeLessThan(j);
    await until("both deposits recorded", async () => (await callsOfTx(id)).length >= 2);
    // Past the transaction's block, every event of it indexed: the deposits' events (DepositRequested, the
    // share and USDG transfers) credited nothing more.
    await indexedPast(id);
    const rows = await callsOfTx(id);
    expect(rows.map((r) => [r.id, r.callIndex, r.from, r.to, r.input, r.via])).toEqual([
      [`${id}:${i}`, i, lower(honest.address), lower(mergedVault), lower(first.steps[1]!.data), "account"],
      [`${id}:${j}`, j, lower(honest.address), lower(mergedVault), lower(second.steps[1]!.data), "account"],
    ]);
    const summary = await grade();
    expect(summary.matched).toBe(2);
    expect((await actionsOf(honest.address)).map((a) => a.signed)).toEqual([true, true]);
  });

  it("a bundle sent step by step: the deposit transaction itself is the call, recorded once with the transaction's hash", async () => {
    const deposit = await prepared(honest.address, "vault-deposit", { vault: mergedVault, amount: "800", agentTag: "direct" });
    const receipts = await sendStepsAt(stack.rpcUrl, chain, honest, deposit.steps as { to: Address; data: Hex; value: string }[], "direct deposit");
    const hash = receipts.at(-1)!.transactionHash;
    const rows = await until("the direct deposit recorded", async () => {
      const r = await callsOfTx(hash);
      return r.length ? r : null;
    });
    expect(rows.map((r) => [r.id, r.callIndex, r.from, r.input, r.via])).toEqual([[hash, 0, lower(honest.address), lower(deposit.steps[1]!.data), null]]);
    expect((await grade()).matched).toBe(1);
  });
});
