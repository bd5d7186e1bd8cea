// The typed client checks before it signs: sendPrepared refuses a PrepareResult whose `to`, spender,
// recipient or value was changed (in the steps, or only in walletSendCalls) with BundleCheckError and
// sends nothing (the wallet's transport records every call); createAgentClient refuses plain http to a
// host that is not loopback.
import { createWalletClient, custom, defineChain, encodeFunctionData, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { CHAIN_ID } from "../../domain/chain.js";
import { devnetChain } from "../../devnet/chain.js";
import { mergedVaultAbi, testTokenAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import {
  allowListOf,
  BundleCheckError,
  createAgentClient,
  InsecureBaseUrlError,
  preparedResultViolations,
  sendPrepared,
  type PrepareResult,
} from "../../client/index.js";
import { buildVaultDeposit, walletSendCalls } from "../../domain/bundles/index.js";

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const owner = a(0x1001);
const usdg = a(0x2001);
const vault = a(0x3001);
const attacker = a(0xbad);
const deployments: Deployments = {
  chainId: CHAIN_ID,
  startBlock: 0,
  contracts: { usdg },
  tokens: [],
  vaults: [{ address: vault, family: "merged", name: "V", token: a(0x2002), agent: true }],
  baskets: [],
};
const chain = defineChain({ ...devnetChain, rpcUrls: { default: { http: ["http://127.0.0.1:1"] } } });

/** A PrepareResult as the API answers it, from the real merged-vault deposit builder. */
function prepared(): PrepareResult {
  const bundle = buildVaultDeposit({ family: "merged", owner, vault, usdg, assets: 250_000_000n, minShares: 1n });
  return {
    id: "sr_test",
    kind: bundle.kind,
    owner,
    steps: bundle.steps.map((s) => ({ to: s.to, data: s.data, value: "0" as const })),
    params: {},
    signUrl: "http://127.0.0.1/sign/sr_test",
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    walletSendCalls: walletSendCalls(bundle, owner),
    simulation: { method: "eth_simulateV1" },
  } as PrepareResult;
}

/** A wallet whose transport records every request; wallet_sendCalls answers a batch that is final at once. */
const sent: string[] = [];
const wallet = createWalletClient({
  account: owner,
  chain,
  transport: custom({
    request: async ({ method }: { method: string }) => {
      sent.push(method);
      if (method === "wallet_sendCalls") return { id: "0x01" };
      if (method === "wallet_getCallsStatus") return { status: 200, receipts: [] };
      if (method === "eth_chainId") return "0x1237";
      throw new Error(`unexpected ${method}`);
    },
  }),
});
const publicClient = {} as PublicClient;

type Tamper = (r: PrepareResult) => void;
const approveTo = (spender: Address, amount: bigint): Hex => encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [spender, amount] });
const depositFor = (receiver: Address): Hex => encodeFunctionData({ abi: mergedVaultAbi, functionName: "requestDeposit", args: [250_000_000n, receiver, 1n] });
const both = (r: PrepareResult, i: number, change: Partial<{ to: Address; data: Hex }>) => {
  Object.assign(r.steps[i]!, change);
  Object.assign(r.walletSendCalls.calls[i]!, change);
};

const tampers: [string, Tamper][] = [
  ["the deposit's `to` (steps and calls)", (r) => both(r, 1, { to: attacker })],
  [
    "the approval's spender and the deposit's `to` together (steps and calls)",
    (r) => (both(r, 0, { data: approveTo(attacker, 250_000_000n) }), both(r, 1, { to: attacker })),
  ],
  ["the approval's spender alone", (r) => both(r, 0, { data: approveTo(attacker, 250_000_000n) })],
  ["the deposit's receiver (steps and calls)", (r) => both(r, 1, { data: depositFor(attacker) })],
  ["a step's value", (r) => (((r.steps[1] as { value: string }).value = "1"), ((r.walletSendCalls.calls[1] as { value: string }).value = "0x1"))],
  ["only the walletSendCalls `to`", (r) => ((r.walletSendCalls.calls[1] as { to: string }).to = attacker)],
  ["only the walletSendCalls receiver", (r) => ((r.walletSendCalls.calls[1] as { data: string }).data = depositFor(attacker))],
  ["only the walletSendCalls value", (r) => ((r.walletSendCalls.calls[0] as { value: string }).value = "0x5")],
  ["only the walletSendCalls atomicRequired", (r) => ((r.walletSendCalls as { atomicRequired: boolean }).atomicRequired = false)],
];

beforeEach(() => {
  sent.length = 0;
});

describe("sendPrepared checks before it signs", () => {
  it("an untouched bundle passes the check and goes to the wallet", async () => {
    const result = prepared();
    expect(preparedResultViolations(result, deployments)).toEqual([]);
    const answer = await sendPrepared(wallet, publicClient, result, { allow: deployments });
    expect(answer.method).toBe("wallet_sendCalls");
    expect(sent).toContain("wallet_sendCalls");
  });

  for (const [what, tamper] of tampers) {
    for (const fallbackOnly of [false, true]) {
      it(`refuses a bundle with ${what} changed${fallbackOnly ? " (one transaction per step)" : ""}: BundleCheckError, nothing sent`, async () => {
        const result = prepared();
        tamper(result);
        const error = await sendPrepared(wallet, publicClient, result, { allow: allowListOf(deployments), fallbackOnly }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BundleCheckError);
        expect((error as BundleCheckError).violations.length).toBeGreaterThan(0);
        expect(sent).toEqual([]);
      });
    }
  }

  it("names the attacker's address in the violations of a moved deposit", () => {
    const result = prepared();
    both(result, 1, { to: attacker });
    expect(preparedResultViolations(result, deployments).some((v) => v.includes(`to ${attacker} is not a contract of the service`))).toBe(true);
  });
});

describe("createAgentClient refuses plain http off loopback", () => {
  it.each(["http://agents.example.com", "http://10.0.0.5:8080", "http://128.0.0.1", "ftp://127.0.0.1"])("refuses %s", (baseUrl) => {
    expect(() => createAgentClient({ baseUrl })).toThrow(InsecureBaseUrlError);
  });
  it.each(["https://agents.example.com", "http://127.0.0.1:8080", "http://127.5.6.7", "http://localhost:3000", "http://[::1]:8080"])("takes %s", (baseUrl) => {
    expect(() => createAgentClient({ baseUrl })).not.toThrow();
  });
  it("takes plain http off loopback when told to", () => {
    expect(() => createAgentClient({ baseUrl: "http://agents.example.com", allowInsecureHttp: true })).not.toThrow();
  });
});
