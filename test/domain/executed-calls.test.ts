// What the indexer records for the report card: a transaction to a service contract as before, and the
// inner calls of an atomic batch only where the service contract's own event in that transaction pairs them.
import { encodeAbiParameters, encodeFunctionData, pad, parseAbi, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { batchExecutorAbi, entryPointAbi, smartAccountAbi } from "../../abis/index.js";
import { executedCallsOf } from "../../domain/executed-calls.js";

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
const service = new Set([vault, router].map((a) => a.toLowerCase()));
const common = {
  isServiceContract: (a: Address) => service.has(a.toLowerCase()),
  reportedElsewhere: (a: Address) => a.toLowerCase() === router.toLowerCase(),
  entryPoints: [entryPoint],
};
const erc7821 = (calls: { to: Address; data: Hex }[]) =>
  encodeFunctionData({
    abi: batchExecutorAbi,
    functionName: "execute",
    args: [
      pad("0x01", { dir: "right", size: 32 }),
      encodeAbiParameters(
        [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }],
        [calls.map((c) => [c.to, 0n, c.data] as const)],
      ),
    ],
  });
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

describe("executedCallsOf", () => {
  it("a transaction sent to a service contract is one call, keyed by its hash", () => {
    const out = executedCallsOf({ ...common, transaction: { hash, from: owner, to: vault, input: deposit }, event: { address: vault, owners: [] } });
    expect(out).toEqual([{ id: hash, txHash: hash, from: lower(owner), to: lower(vault), input: deposit, selector: deposit.slice(0, 10), via: null }]);
  });

  it("an EIP-7702 account's ERC-7821 batch: the service call, paired with the vault's event for the owner; the approval is no service call", () => {
    const input = erc7821([
      { to: token, data: approve },
      { to: vault, data: deposit },
    ]);
    const out = executedCallsOf({ ...common, transaction: { hash, from: owner, to: owner, input }, event: { address: vault, owners: [owner] } });
    expect(out).toEqual([
      { id: `${hash}:1`, txHash: hash, from: lower(owner), to: lower(vault), input: deposit, selector: deposit.slice(0, 10), via: "account" },
    ]);
  });

  it("an ERC-4337 operation through a trusted EntryPoint: the smart account is the caller", () => {
    const callData = encodeFunctionData({ abi: smartAccountAbi, functionName: "execute", args: [vault, 0n, deposit] });
    const out = executedCallsOf({
      ...common,
      transaction: { hash, from: stranger, to: entryPoint, input: handleOps(owner, callData) },
      event: { address: vault, owners: [owner] },
    });
    expect(out.map((c) => [c.id, c.from, c.to, c.via])).toEqual([[`${hash}:0`, lower(owner), lower(vault), "entry-point"]]);
  });

  it("a batch cannot claim a call its transaction's events do not pair", () => {
    const input = erc7821([{ to: vault, data: deposit }]);
    const tx = { hash, from: owner, to: owner, input };
    // No change of the account in this event (a keeper's settlement for someone else, say).
    expect(executedCallsOf({ ...common, transaction: tx, event: { address: vault, owners: [stranger] } })).toEqual([]);
    // An event of another contract does not pair a call to the vault.
    expect(executedCallsOf({ ...common, transaction: tx, event: { address: token, owners: [owner] } })).toEqual([]);
    // handleOps on an untrusted contract names senders in calldata only.
    const callData = encodeFunctionData({ abi: smartAccountAbi, functionName: "execute", args: [vault, 0n, deposit] });
    expect(
      executedCallsOf({
        ...common,
        transaction: { hash, from: stranger, to: stranger, input: handleOps(owner, callData) },
        event: { address: vault, owners: [owner, stranger] },
      }),
    ).toEqual([]);
  });

  it("a router's call pairs with the event of the contract it calls, for the same owner", () => {
    const input = erc7821([{ to: router, data: deposit }]);
    const out = executedCallsOf({ ...common, transaction: { hash, from: owner, to: owner, input }, event: { address: vault, owners: [owner] } });
    expect(out.map((c) => c.to)).toEqual([lower(router)]);
  });
});
