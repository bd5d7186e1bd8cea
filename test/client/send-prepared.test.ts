// sendPrepared sends the bundle with wallet_sendCalls as the API answered it (atomicRequired: true for an
// approval before its action), reports whether the wallet ran it atomically, and falls back to one
// transaction per step when the wallet lacks wallet_sendCalls or cannot honour atomicity (EIP-5792 5760).
import {
  type Chain,
  createWalletClient,
  custom,
  defineChain,
  getAddress,
  keccak256,
  parseTransaction,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { mainnet } from "viem/chains";
import { privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { sendPrepared, WrongChainError, type PrepareResult } from "../../client/index.js";
import { buildVaultDeposit, walletSendCalls } from "../../domain/bundles/index.js";
import { CHAIN_ID } from "../../domain/chain.js";
import { devnetChain } from "../../devnet/chain.js";

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const owner = a(0x1001);
const usdg = a(0x2001);
const vault = a(0x3001);
const deployments: Deployments = {
  chainId: CHAIN_ID,
  startBlock: 0,
  contracts: { usdg },
  tokens: [],
  vaults: [{ address: vault, family: "merged", name: "V", token: a(0x2002), agent: true }],
  baskets: [],
};
const chain = defineChain({ ...devnetChain, rpcUrls: { default: { http: ["http://127.0.0.1:1"] } } });

function prepared(forOwner: Hex = owner): PrepareResult {
  const bundle = buildVaultDeposit({ family: "merged", owner: forOwner, vault, usdg, assets: 250_000_000n, minShares: 1n });
  return {
    id: "sr_test",
    kind: bundle.kind,
    owner: forOwner,
    steps: bundle.steps.map((s) => ({ to: s.to, data: s.data, value: "0" as const })),
    params: {},
    signUrl: "http://127.0.0.1/sign/sr_test",
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    walletSendCalls: walletSendCalls(bundle, forOwner),
    simulation: { method: "eth_simulateV1" },
  } as PrepareResult;
}

const requests: { method: string; params?: unknown }[] = [];
const BATCH_TX = `0x${"11".repeat(32)}` as Hex;
/**
 * A wallet on `mode`: an atomic batch wallet, one without atomicity (5760), one without wallet_sendCalls, or
 * one that refuses the batch's chain (5710). `chainId` is what it answers to eth_chainId, asked each time.
 */
const walletOn = (mode: "atomic" | "no-atomicity" | "none" | "other-chain", chainId: () => string = () => "0x1237", onChain: Chain | undefined = chain) =>
  createWalletClient({
    account: owner,
    chain: onChain,
    transport: custom({
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        requests.push({ method, params });
        if (method === "eth_chainId") return chainId();
        if (method === "wallet_sendCalls") {
          if (mode === "none") throw Object.assign(new Error("Method not found"), { code: -32601 });
          if (mode === "other-chain") throw Object.assign(new Error("Unsupported chain id"), { code: 5710 });
          if (mode === "no-atomicity") throw Object.assign(new Error("Atomicity not supported"), { code: 5760 });
          return { id: "0xb1" };
        }
        if (method === "wallet_getCallsStatus")
          return { version: "2.0.0", id: "0xb1", chainId: "0x1237", status: 200, atomic: true, receipts: [{ transactionHash: BATCH_TX }] };
        if (method === "eth_sendTransaction") return `0x${requests.length.toString(16).padStart(64, "0")}`;
        throw new Error(`unexpected ${method}`);
      },
    }),
  });
const receipt = (hash: Hex) => ({ status: "success", transactionHash: hash }) as TransactionReceipt;
const publicClient = {
  getTransactionReceipt: async ({ hash }: { hash: Hex }) => receipt(hash),
  waitForTransactionReceipt: async ({ hash }: { hash: Hex }) => receipt(hash),
} as unknown as PublicClient;

beforeEach(() => {
  requests.length = 0;
});

describe("sendPrepared and atomic batches", () => {
  it("sends the approval and the deposit as one wallet_sendCalls with atomicRequired, and reports the atomic batch", async () => {
    const result = prepared();
    const sent = await sendPrepared(walletOn("atomic"), publicClient, result, { allow: deployments });
    expect([sent.method, sent.atomic, sent.receipts.map((r) => r.transactionHash)]).toEqual(["wallet_sendCalls", true, [BATCH_TX]]);
    const call = requests.find((r) => r.method === "wallet_sendCalls")!.params as [{ atomicRequired: boolean; calls: unknown[] }];
    expect(call[0].atomicRequired).toBe(true);
    expect(call[0]).toEqual(result.walletSendCalls);
    expect(requests.some((r) => r.method === "eth_sendTransaction")).toBe(false);
  });

  for (const mode of ["no-atomicity", "none"] as const) {
    it(`falls back to one transaction per step, approval first, when the wallet ${mode === "none" ? "lacks wallet_sendCalls" : "cannot run the calls atomically (5760)"}`, async () => {
      const result = prepared();
      const sent = await sendPrepared(walletOn(mode), publicClient, result, { allow: deployments });
      expect(sent.method).toBe("eth_sendTransaction");
      expect(sent.receipts).toHaveLength(2);
      const txs = requests.filter((r) => r.method === "eth_sendTransaction").map((r) => (r.params as [{ to: string }])[0].to.toLowerCase());
      expect(txs).toEqual(result.steps.map((s) => s.to.toLowerCase()));
    });
  }

  it("signing for a local account, gives each step 30% headroom over the estimate, as a wallet would (a bare estimate can run out of gas)", async () => {
    const local = privateKeyToAccount(`0x${"42".repeat(32)}`);
    const raw: Hex[] = [];
    const wallet = createWalletClient({
      account: local,
      chain,
      transport: custom({
        request: async ({ method, params }: { method: string; params?: unknown }) => {
          if (method === "eth_chainId") return "0x1237";
          if (method === "eth_getTransactionCount") return "0x0";
          if (method === "eth_getBlockByNumber") return { baseFeePerGas: "0x1", number: "0x1", timestamp: "0x1", transactions: [] };
          if (method === "eth_maxPriorityFeePerGas") return "0x1";
          if (method === "eth_sendRawTransaction") {
            raw.push((params as [Hex])[0]);
            return keccak256((params as [Hex])[0]);
          }
          throw new Error(`unexpected ${method}`);
        },
      }),
    });
    const estimates = [46_000n, 120_000n];
    const estimating = { ...publicClient, estimateGas: async () => estimates[raw.length]! } as unknown as PublicClient;
    const result = prepared(local.address);
    const sent = await sendPrepared(wallet, estimating, result, { allow: deployments, fallbackOnly: true });
    expect(sent.receipts).toHaveLength(2);
    expect(raw.map((r) => parseTransaction(r).gas)).toEqual([59_800n, 156_000n]);
    expect(raw.map((r) => parseTransaction(r).to?.toLowerCase())).toEqual(result.steps.map((s) => s.to.toLowerCase()));
  });
});

describe("sendPrepared checks the wallet's chain before it signs, on every path", () => {
  const sends = () => requests.filter((r) => r.method === "wallet_sendCalls" || r.method === "eth_sendTransaction" || r.method === "eth_sendRawTransaction");
  const onChain1 = () => "0x1";

  for (const [mode, fallbackOnly] of [
    ["atomic", false],
    ["none", false],
    ["other-chain", false],
    ["atomic", true],
  ] as const) {
    it(`refuses a wallet on chain 1 (${fallbackOnly ? "one by one only" : `wallet_sendCalls path, wallet ${mode}`}): WrongChainError, nothing sent`, async () => {
      const error = await sendPrepared(walletOn(mode, onChain1, undefined), publicClient, prepared(), { allow: deployments, fallbackOnly }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WrongChainError);
      expect(error).toMatchObject({ expected: 4663, actual: 1, sent: 0 });
      expect((error as Error).message).toBe(
        "the wallet is on chain 1, the bundle is for chain 4663: switch the wallet to chain 4663 (0 step(s) were sent before)",
      );
      expect(sends()).toEqual([]);
    });
  }

  it("refuses a wallet client configured for chain 1 even when its transport answers 4663", async () => {
    const error = await sendPrepared(
      walletOn("none", () => "0x1237", mainnet),
      publicClient,
      prepared(),
      { allow: deployments },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "WrongChainError", expected: 4663, actual: 1 });
    expect(sends()).toEqual([]);
  });

  it("stops one by one when the wallet leaves the chain between two steps", async () => {
    // The wallet switches to chain 1 once the first step has gone out.
    const switched = () => (requests.some((r) => r.method === "eth_sendTransaction") ? "0x1" : "0x1237");
    const error = await sendPrepared(walletOn("other-chain", switched), publicClient, prepared(), { allow: deployments }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "WrongChainError", actual: 1, sent: 1 });
    expect(requests.filter((r) => r.method === "eth_sendTransaction")).toHaveLength(1);
  });

  it("a local account on an RPC answering chain 1 signs nothing (it would sign with chain id 1)", async () => {
    const local = privateKeyToAccount(`0x${"43".repeat(32)}`);
    const raw: Hex[] = [];
    const wallet = createWalletClient({
      account: local,
      transport: custom({
        request: async ({ method, params }: { method: string; params?: unknown }) => {
          if (method === "eth_chainId") return "0x1";
          if (method === "eth_sendRawTransaction") raw.push((params as [Hex])[0]);
          throw new Error(`unexpected ${method}`);
        },
      }),
    });
    const estimating = { ...publicClient, estimateGas: async () => 50_000n } as unknown as PublicClient;
    const error = await sendPrepared(wallet, estimating, prepared(local.address), { allow: deployments, fallbackOnly: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "WrongChainError", expected: 4663, actual: 1 });
    expect(raw).toEqual([]);
  });
});
