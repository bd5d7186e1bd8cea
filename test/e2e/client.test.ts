// The typed client (src/client) and its wallet helper over the running system: the API served on a
// real port (prepares run in process, on the devnet), test wallet 16 (minted USDG by the admin). The
// client reads the vaults, prepares a vault deposit, and sendPrepared sends it: once from a viem local
// account (no wallet_sendCalls: one transaction per step, approvals first, each receipt awaited), once
// through an EIP-1193 wallet built here that implements wallet_sendCalls. Each deposit is then seen
// on chain and in the activity feed, read with the client's long poll.
import { serve, type ServerType } from "@hono/node-server";
import { createWalletClient, custom, decodeFunctionData, encodeFunctionData, http, parseUnits, type EIP1193RequestFn, type Hex, type LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { AgentApiError, BundleCheckError, createAgentClient, sendPrepared, type AgentClient, type PrepareResult } from "../../client/index.js";
import { randomPrefix } from "../api/support.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { devnetAt, mintAt, publicClientAt, testAccount, walletAt } from "../helpers/wallets.js";
import { freePort } from "../helpers/stack.js";

const stack = inject("stack");
const chain = devnetAt(stack.rpcUrl);
const agent = testAccount(16);
const publicClient = publicClientAt(stack.rpcUrl, { pollingInterval: 50 });
const AMOUNT = "125";

let opened: StackApp;
let deployments: Deployments;
let server: ServerType;
let client: AgentClient;
const prefix = randomPrefix();

beforeAll(async () => {
  const port = await freePort();
  // Wall time: sendPrepared checks the answer's expiresAt against it.
  const now = () => new Date();
  opened = await openStackApp(stack, { prefix, app: { now, baseUrl: `http://127.0.0.1:${port}`, rateLimit: { keyPrefix: `${prefix}:rl` } } });
  deployments = opened.d;
  const t = opened.app;
  server = serve({ fetch: t.app.fetch, port, hostname: "127.0.0.1" });
  client = createAgentClient({ baseUrl: `http://127.0.0.1:${port}` });
  // Wallet 16 is not one of the devnet's funded test wallets: the admin mints it USDG (it has ETH).
  await mintAt(stack.rpcUrl, publicClient, deployments.contracts.usdg!, agent.address, parseUnits("10000", 6));
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await opened?.close();
});

/**
 * An EIP-1193 wallet with EIP-5792: wallet_sendCalls answers a batch id at once and sends the calls
 * in the background (in order, each after the previous receipt) from `account`;
 * wallet_getCallsStatus answers 100 until they are mined, then 200 with the receipts. Every other
 * method goes to the devnet.
 */
function batchingWallet(account: LocalAccount) {
  const signer = createWalletClient({ account, chain, transport: http(stack.rpcUrl) });
  const node = http(stack.rpcUrl)({ chain });
  const batches = new Map<string, { status: number; receipts: { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; status: Hex }[] }>();
  const received: { version: string; chainId: string; from: string; atomicRequired: boolean; calls: { to: Hex; data: Hex; value: Hex }[] }[] = [];
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    switch (method) {
      case "eth_accounts":
      case "eth_requestAccounts":
        return [account.address];
      case "eth_chainId":
        return "0x1237";
      case "wallet_sendCalls": {
        const [batch] = params as [(typeof received)[number]];
        if (batch.chainId !== "0x1237") throw Object.assign(new Error("unsupported chain"), { code: 5710 });
        if (batch.from.toLowerCase() !== account.address.toLowerCase()) throw Object.assign(new Error("unknown account"), { code: 4100 });
        received.push(batch);
        const id = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`;
        const state = { status: 100, receipts: [] as { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; status: Hex }[] };
        batches.set(id, state);
        void (async () => {
          for (const call of batch.calls) {
            const hash = await signer.sendTransaction({ to: call.to, data: call.data, value: BigInt(call.value) });
            const receipt = await publicClient.waitForTransactionReceipt({ hash });
            state.receipts.push({
              transactionHash: hash,
              blockHash: receipt.blockHash,
              blockNumber: `0x${receipt.blockNumber.toString(16)}`,
              status: receipt.status === "success" ? "0x1" : "0x0",
            });
            if (receipt.status !== "success") return void (state.status = 500);
          }
          state.status = 200;
        })().catch(() => (state.status = 400));
        return { id };
      }
      case "wallet_getCallsStatus": {
        const [id] = params as [string];
        const state = batches.get(id);
        if (!state) throw Object.assign(new Error("unknown bundle id"), { code: 5730 });
        return { version: "2.0.0", id, chainId: "0x1237", atomic: false, status: state.status, receipts: state.status === 200 ? state.receipts : [] };
      }
      default:
        return node.request({ method, params } as never);
    }
  }) as EIP1193RequestFn;
  return { provider: { request, on: () => {}, removeListener: () => {} }, received };
}

async function prepareDeposit(): Promise<{ result: PrepareResult; vault: string }> {
  const vaults = await client.vaults();
  const vault = vaults.find((v) => v.family === "merged" && v.status === "open");
  expect(vault, "an open merged vault").toBeDefined();
  const result = await client.prepare("vault-deposit", { owner: agent.address, vault: vault!.address, amount: AMOUNT });
  expect(result.owner).toBe(agent.address);
  expect(result.steps).toHaveLength(2);
  expect(result.walletSendCalls.calls.map((c) => c.to)).toEqual(result.steps.map((s) => s.to));
  return { result, vault: vault!.address };
}

/** The deposit request's change, from the client's long poll after `cursor`. */
async function depositChange(cursor: string, txHash: Hex) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await client.activity(agent.address, { cursor, waitMs: 10_000 });
    const change = answer.changes.find((c) => c.txHash === txHash && c.kind === "vault.deposit.requested");
    if (change) return change;
    cursor = answer.cursor;
  }
  throw new Error(`no vault.deposit.requested change for ${txHash}`);
}

describe("the typed client and sendPrepared on the devnet", () => {
  it("reads through the client; an error answer is an AgentApiError with the catalog code", async () => {
    const products = await client.products();
    expect(products.vaults.count).toBeGreaterThan(0);
    const account = await client.account(agent.address);
    expect(account).toBeTypeOf("object");
    const error = await client.vault("0x000000000000000000000000000000000000dEaD").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentApiError);
    expect(error).toMatchObject({ status: 404, code: "NOT_AGENT_VAULT" });
    const bad = await client.prepare("vault-deposit", { owner: "nope", vault: agent.address, amount: "1" } as never).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: "INVALID_REQUEST" });
  });

  it("a local account (no wallet_sendCalls): falls back to one transaction per step, approval first, and the deposit lands", async () => {
    const { cursor } = await client.activity(agent.address);
    const { result, vault } = await prepareDeposit();
    const wallet = walletAt(stack.rpcUrl, agent);
    const sent = await sendPrepared(wallet, publicClient, result, { allow: deployments });
    expect(sent.method).toBe("eth_sendTransaction");
    expect(sent.receipts).toHaveLength(2);
    expect(sent.receipts.every((r) => r.status === "success")).toBe(true);
    // In order: the approval is mined before the deposit.
    const [approve, deposit] = await Promise.all(sent.receipts.map((r) => publicClient.getTransaction({ hash: r.transactionHash })));
    expect(decodeFunctionData({ abi: testTokenAbi, data: approve!.input }).functionName).toBe("approve");
    expect(decodeFunctionData({ abi: mergedVaultAbi, data: deposit!.input }).functionName).toBe("requestDeposit");
    expect(sent.receipts[0]!.blockNumber < sent.receipts[1]!.blockNumber).toBe(true);
    const change = await depositChange(cursor, sent.receipts[1]!.transactionHash);
    expect(change.subject.toLowerCase()).toBe(vault.toLowerCase());
    expect(change.data).toMatchObject({ assets: parseUnits(AMOUNT, 6).toString(), receiver: agent.address });
  });

  it("a wallet with wallet_sendCalls: gets the answer's walletSendCalls as is, and the deposit lands", async () => {
    const { cursor } = await client.activity(agent.address);
    const { result } = await prepareDeposit();
    const { provider, received } = batchingWallet(agent);
    const wallet = createWalletClient({ account: agent.address, chain, transport: custom(provider) });
    const sent = await sendPrepared(wallet, publicClient, result, { allow: deployments });
    expect(sent.method).toBe("wallet_sendCalls");
    expect(sent.callsId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(received).toEqual([result.walletSendCalls]);
    expect(sent.receipts).toHaveLength(2);
    expect(sent.receipts.every((r) => r.status === "success")).toBe(true);
    const change = await depositChange(cursor, sent.receipts[1]!.transactionHash);
    expect(change.data).toMatchObject({ assets: parseUnits(AMOUNT, 6).toString(), receiver: agent.address });
  });

  it("refuses a real bundle whose approval and deposit were moved to another contract: BundleCheckError, nothing sent", async () => {
    const { result } = await prepareDeposit();
    const attacker = testAccount(18).address;
    // Consistent tampering: the approval's spender and the pulling step's target both become the attacker.
    const approve = decodeFunctionData({ abi: testTokenAbi, data: result.steps[0]!.data as Hex });
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [attacker, approve.args![1] as bigint] });
    for (const calls of [result.steps, result.walletSendCalls.calls] as { to: string; data: string }[][]) {
      calls[0]!.data = data;
      calls[1]!.to = attacker;
    }
    const { provider, received } = batchingWallet(agent);
    const wallet = createWalletClient({ account: agent.address, chain, transport: custom(provider) });
    const error = await sendPrepared(wallet, publicClient, result, { allow: deployments }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleCheckError);
    expect((error as BundleCheckError).violations.some((v) => v.includes(attacker))).toBe(true);
    expect(received).toEqual([]);
  });

  it("refuses a bundle for another wallet before sending anything", async () => {
    const { result } = await prepareDeposit();
    const other = testAccount(17);
    const wallet = walletAt(stack.rpcUrl, other);
    await expect(sendPrepared(wallet, publicClient, result, { allow: deployments })).rejects.toThrow(/not 0x/);
  });
});
