// What the indexer records for the report card: a transaction to a service contract is the call; an inner call
// of an atomic batch only when an event of its transaction confirms that very call (its function's event, from
// its target, for its account, with its amounts), one event one call, in call order. Tried with liars.
import { encodeFunctionData, pad, parseAbi, toEventSelector, zeroAddress, type Abi, type AbiEvent, type Address, type Hex } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import * as abis from "../../abis/index.js";
import { entryPointAbi, limitOrderHookAbi, mergedVaultAbi, smartAccountAbi, stockVaultRouterAbi } from "../../abis/index.js";
import { confirmedCalls } from "../../domain/bundles/confirmations.js";
import { agentActions } from "../../domain/bundles/decode.js";
import { confirmNextCall, MAX_BATCH_CALLS, tracedCall, transactionCalls, type ConfirmingEvent, type TransactionCalls } from "../../domain/executed-calls.js";
import { encodeBatchExecute } from "../helpers/erc7821.js";

const owner: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const stranger: Address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const entryPoint: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const vault: Address = "0xa513E6E4b8f2a923D98304ec87F64353C4D5C853";
const router: Address = "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318";
const token: Address = "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6";
const hash = `0x${"ab".repeat(32)}` as Hex;
const approve = encodeFunctionData({ abi: parseAbi(["function approve(address,uint256)"]), functionName: "approve", args: [vault, 50n] });
const deposit = encodeFunctionData({
  abi: parseAbi(["function requestDeposit(uint256,address,uint256)"]),
  functionName: "requestDeposit",
  args: [50n, owner, 0n],
});
const hook: Address = "0x0165878A594ca255338adfa4d48449f69242Eb8F";
const otherVault: Address = "0x9A676e781A523b5d0C0e43731313A708CB607508";
const service = new Set([vault, router, hook, otherVault].map((a) => a.toLowerCase()));
const common = { isServiceContract: (a: Address) => service.has(a.toLowerCase()), entryPoints: [entryPoint] };
const erc7821 = (calls: { to: Address; data: Hex }[]) => encodeBatchExecute(calls);

const handleOps = (sender: Address, callData: Hex) =>
  encodeFunctionData({
    abi: entryPointAbi,
    functionName: "handleOps",
    args: [
      [
        {
          sender,
          nonce: 0n,
          initCode: "0x",
          callData,
          accountGasLimits: pad("0x", { size: 32 }),
          preVerificationGas: 0n,
          gasFees: pad("0x", { size: 32 }),
          paymasterAndData: "0x",
          signature: "0x",
        },
      ],
      stranger,
    ],
  });
const lower = (a: string) => a.toLowerCase();
const topic = (abi: Abi, name: string): Hex => toEventSelector(abi.find((x): x is AbiEvent => x.type === "event" && x.name === name)!);
const requested = (
  args: Partial<{ id: bigint; owner: Address; receiver: Address; assets: bigint; minShares: bigint }>,
  emitter: Address = vault,
): ConfirmingEvent => ({
  emitter,
  topic: topic(mergedVaultAbi, "DepositRequested"),
  args: { id: 1n, owner, receiver: owner, assets: 50n, minShares: 0n, ...args },
});
const shareTransfer = (from: Address, to: Address, value: bigint, emitter: Address = vault): ConfirmingEvent => ({
  emitter,
  topic: topic(mergedVaultAbi, "Transfer"),
  args: { from, to, value },
});
const batchOf = (input: Hex, from: Address = owner, to: Address = owner) => transactionCalls({ ...common, transaction: { hash, from, to, input } });

/** The index's rows as confirmNextCall reads them: a call it returns is recorded. */
let recorded = new Set<string>();
const confirm = async (calls: TransactionCalls, event: ConfirmingEvent) => {
  const call = await confirmNextCall(calls, event, (id) => recorded.has(id));
  if (call) recorded.add(call.id);
  return call;
};

describe("transactionCalls and confirmNextCall", () => {
  beforeEach(() => {
    recorded = new Set();
  });

  it("a transaction sent to a service contract is the call, keyed by its hash", async () => {
    const calls = transactionCalls({ ...common, transaction: { hash, from: owner, to: vault, input: deposit } });
    expect(calls).toEqual({
      kind: "direct",
      call: { id: hash, txHash: hash, from: lower(owner), to: lower(vault), input: deposit, selector: deposit.slice(0, 10), via: null, callIndex: 0 },
    });
  });

  it("an EIP-7702 account's batch: the deposit is recorded when the vault's DepositRequested for the account, with its amounts, confirms it", async () => {
    const calls = batchOf(
      erc7821([
        { to: token, data: approve },
        { to: vault, data: deposit },
      ]),
    );
    expect(await confirm(calls, requested({}))).toEqual({
      id: `${hash}:1`,
      txHash: hash,
      from: lower(owner),
      to: lower(vault),
      input: deposit,
      selector: deposit.slice(0, 10),
      via: "account",
      callIndex: 1,
    });
    // One event confirms one call: the same event again confirms nothing more.
    expect(await confirm(calls, requested({}))).toBeNull();
  });

  it("a lying delegate's zero-value share transfer to itself confirms nothing", async () => {
    const calls = batchOf(
      erc7821([
        { to: token, data: approve },
        { to: vault, data: deposit },
      ]),
    );
    expect(await confirm(calls, shareTransfer(owner, owner, 0n))).toBeNull();
    expect(await confirm(calls, shareTransfer(owner, owner, 0n, otherVault))).toBeNull();
  });

  it("a deposit made for less, for another receiver, by another account or on another vault confirms nothing", async () => {
    const calls = batchOf(erc7821([{ to: vault, data: deposit }]));
    expect(await confirm(calls, requested({ assets: 25n }))).toBeNull();
    expect(await confirm(calls, requested({ receiver: stranger }))).toBeNull();
    expect(await confirm(calls, requested({ owner: stranger }))).toBeNull();
    expect(await confirm(calls, requested({}, otherVault))).toBeNull();
    expect(await confirm(calls, { ...requested({}), topic: topic(mergedVaultAbi, "DepositCancelled") })).toBeNull();
    expect((await confirm(calls, requested({})))?.id).toBe(`${hash}:0`);
  });

  it("an order call is confirmed only by the order it placed: the token, side, amount and price the calldata names", async () => {
    const weth: Address = "0x4ed7c70F96B99c776995fB64377f0d4aB3B0e1C1";
    const cheap: Address = "0x59b670e9fA9D0A427751Af201D676719a970857b";
    const create = encodeFunctionData({ abi: limitOrderHookAbi, functionName: "create", args: [weth, false, 20_000_000n, 10n ** 21n] });
    const calls = batchOf(erc7821([{ to: hook, data: create }]));
    const placed = (args: Record<string, unknown>): ConfirmingEvent => ({
      emitter: hook,
      topic: topic(limitOrderHookAbi, "OrderPlaced"),
      args: { id: 7n, owner, token: weth, sellToken: false, amountIn: 20_000_000n, priceX18: 10n ** 21n, market: false, ...args },
    });
    expect(await confirm(calls, placed({ token: cheap, amountIn: 1_000_000n }))).toBeNull();
    expect(await confirm(calls, placed({ sellToken: true }))).toBeNull();
    expect(await confirm(calls, placed({ market: true }))).toBeNull();
    expect((await confirm(calls, placed({})))?.callIndex).toBe(0);
  });

  it("a router deposit needs the router's own event for the vault, receiver and at least the minimum shares", async () => {
    const entry = { vault, usdgIn: 5_000_000_000n, minShares: 100n, receiver: owner, aggregator: stranger, swapData: "0x" as Hex };
    const calls = batchOf(erc7821([{ to: router, data: encodeFunctionData({ abi: stockVaultRouterAbi, functionName: "deposit", args: [entry] }) }]));
    const ev = (args: Record<string, unknown>): ConfirmingEvent => ({
      emitter: router,
      topic: topic(stockVaultRouterAbi, "RouterDeposit"),
      args: { vault, sender: owner, receiver: owner, usdgIn: entry.usdgIn, shares: 120n, ...args },
    });
    // The vault's own share mint is no confirmation of the router call; nor is a deposit for fewer shares or on another vault.
    expect(await confirm(calls, shareTransfer(zeroAddress, owner, 120n))).toBeNull();
    expect(await confirm(calls, ev({ shares: 99n }))).toBeNull();
    expect(await confirm(calls, ev({ vault: otherVault }))).toBeNull();
    expect(await confirm(calls, ev({ usdgIn: entry.usdgIn + 1n }))).toBeNull();
    expect((await confirm(calls, ev({})))?.to).toBe(lower(router));
  });

  it("two filings' identical calls in one batch: each is confirmed by its own event, in call order", async () => {
    const calls = batchOf(
      erc7821([
        { to: token, data: approve },
        { to: vault, data: deposit },
        { to: token, data: approve },
        { to: vault, data: deposit },
      ]),
    );
    expect((await confirm(calls, requested({ id: 1n })))?.callIndex).toBe(1);
    expect((await confirm(calls, requested({ id: 2n })))?.callIndex).toBe(3);
    expect(await confirm(calls, requested({ id: 3n }))).toBeNull();
  });

  it("after a restart or a retried batch inside a transaction, the calls the index already holds are not confirmed again", async () => {
    const calls = batchOf(
      erc7821([
        { to: vault, data: deposit },
        { to: vault, data: deposit },
      ]),
    );
    recorded.add(`${hash}:0`);
    expect((await confirm(calls, requested({})))?.callIndex).toBe(1);
  });

  it("an ERC-4337 operation through a trusted EntryPoint: the smart account is the caller; an untrusted handleOps names senders in calldata only", async () => {
    const callData = encodeFunctionData({ abi: smartAccountAbi, functionName: "execute", args: [vault, 0n, deposit] });
    const calls = batchOf(handleOps(owner, callData), stranger, entryPoint);
    expect(await confirm(calls, requested({ owner: stranger }))).toBeNull();
    const call = await confirm(calls, requested({}));
    expect([call?.id, call?.from, call?.to, call?.via]).toEqual([`${hash}:0`, lower(owner), lower(vault), "entry-point"]);
    expect(batchOf(handleOps(owner, callData), stranger, stranger)).toEqual({ kind: "none" });
  });

  it("a batch past the bound: only the first MAX_BATCH_CALLS calls are read, and the rest are counted as dropped", async () => {
    const many = Array.from({ length: MAX_BATCH_CALLS + 44 }, () => ({ to: vault, data: deposit }));
    const calls = batchOf(erc7821(many));
    expect(calls.kind === "batch" && [calls.decoded, calls.pending.length, calls.dropped]).toEqual([MAX_BATCH_CALLS + 44, MAX_BATCH_CALLS, 44]);
  });

  it("calls with no row in the table (a share transfer, say) are not kept: a batch of a thousand of them costs one decode", async () => {
    const transfer = encodeFunctionData({ abi: mergedVaultAbi, functionName: "transfer", args: [owner, 0n] });
    const calls = batchOf(erc7821(Array.from({ length: 1000 }, () => ({ to: vault, data: transfer }))));
    expect(calls.kind === "batch" && calls.pending.length).toBe(0);
  });
});

describe("the confirmation table", () => {
  it("confirms every service call a bundle makes (every agent action but the token approval and the agent account's own call)", async () => {
    const expected = agentActions.filter(([a, f]) => !(a === "testTokenAbi" && f === "approve") && a !== "agentAccountAbi").map(([a, f]) => `${a}.${f}`);
    expect([...confirmedCalls].sort()).toEqual([...new Set(expected)].sort());
    // Every row names a function of its ABI (the table throws at load for an event it cannot find).
    for (const key of confirmedCalls) {
      const [abiName, fn] = key.split(".") as [keyof typeof abis, string];
      expect(
        (abis[abiName] as readonly { type: string; name?: string }[]).some((x) => x.type === "function" && x.name === fn),
        key,
      ).toBe(true);
    }
  });
});

describe("a call from its trace (CALL_TRACES=on)", () => {
  const lower = (a: string) => a.toLowerCase();
  const traced = (tx: { from: Address; to: Address | null }, trace: { from: Address; to: Address | null; input: Hex; traceIndex: number }) =>
    tracedCall({ transaction: { hash, ...tx }, trace, ...common });

  it("the transaction itself: the transaction's hash, call index 0, no via", () => {
    const call = traced({ from: owner, to: vault }, { from: owner, to: vault, input: deposit, traceIndex: 0 });
    expect(call && [call.id, call.from, call.to, call.input, call.selector, call.via, call.callIndex]).toEqual([
      hash,
      lower(owner),
      lower(vault),
      deposit,
      deposit.slice(0, 10),
      null,
      0,
    ]);
  });

  it("an inner call: its caller, its place in the call tree, and how it sits in the transaction", () => {
    const account = traced({ from: stranger, to: owner }, { from: owner, to: vault, input: deposit, traceIndex: 5 });
    expect(account && [account.id, account.from, account.callIndex, account.via]).toEqual([`${hash}:5`, lower(owner), 5, "account"]);
    const op = traced({ from: stranger, to: entryPoint }, { from: owner, to: vault, input: deposit, traceIndex: 3 });
    expect(op && [op.id, op.from, op.via]).toEqual([`${hash}:3`, lower(owner), "entry-point"]);
    // Made by a contract that the transaction's own target called: neither the account's batch nor an operation.
    const other = traced({ from: owner, to: token }, { from: stranger, to: vault, input: deposit, traceIndex: 2 });
    expect(other && [other.from, other.via]).toEqual([lower(stranger), "contract"]);
  });

  it("a call a service contract makes itself (the router's call to a vault) is not the user's call", () => {
    expect(traced({ from: owner, to: router }, { from: router, to: vault, input: deposit, traceIndex: 2 })).toBeNull();
  });
});
