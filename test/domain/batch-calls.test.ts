// The batch encodings the indexer reads: each call keeps its own target and calldata, and its sender is
// the account that makes it; handleOps is read only on a trusted EntryPoint.
import fc from "fast-check";
import { bytesToHex, concat, encodeAbiParameters, encodeFunctionData, getAddress, numberToHex, pad, parseAbi, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { batchExecutorAbi, entryPointAbi, smartAccountAbi } from "../../abis/index.js";
import { accountCalls, CANONICAL_ENTRY_POINTS, decodeBatchCalls } from "../../domain/batch-calls.js";

const BATCH = pad("0x01", { dir: "right", size: 32 });
const SINGLE = pad("0x00", { size: 32 });
const account: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const entryPoint: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const vault: Address = "0xa513E6E4b8f2a923D98304ec87F64353C4D5C853";
const token: Address = "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6";
const approve = encodeFunctionData({ abi: parseAbi(["function approve(address,uint256)"]), functionName: "approve", args: [vault, 50n] });
const deposit = encodeFunctionData({
  abi: parseAbi(["function requestDeposit(uint256,address,uint256)"]),
  functionName: "requestDeposit",
  args: [50n, account, 0n],
});
const calls = [
  { to: token, value: 0n, data: approve },
  { to: vault, value: 0n, data: deposit },
];
const expected = calls.map((c) => ({ target: c.to, value: c.value, data: c.data }));

const op = (sender: Address, callData: Hex) => ({
  sender,
  nonce: 0n,
  initCode: "0x" as Hex,
  callData,
  accountGasLimits: pad("0x", { size: 32 }),
  preVerificationGas: 0n,
  gasFees: pad("0x", { size: 32 }),
  paymasterAndData: "0x" as Hex,
  signature: "0x" as Hex,
});

describe("accountCalls", () => {
  it("reads ERC-7821 batch mode, with and without opData", () => {
    const plain = encodeAbiParameters(
      [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }],
      [calls.map((c) => [c.to, c.value, c.data] as const)],
    );
    expect(accountCalls(encodeFunctionData({ abi: batchExecutorAbi, functionName: "execute", args: [BATCH, plain] }))).toEqual(expected);
    const withOpData = encodeAbiParameters(
      [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }, { type: "bytes" }],
      [calls.map((c) => [c.to, c.value, c.data] as const), "0x1234"],
    );
    const mode = pad("0x01000000000078210001", { dir: "right", size: 32 });
    expect(accountCalls(encodeFunctionData({ abi: batchExecutorAbi, functionName: "execute", args: [mode, withOpData] }))).toEqual(expected);
  });

  it("reads ERC-7579 single mode (packed) and skips delegatecall mode", () => {
    const packed = concat([vault, numberToHex(7n, { size: 32 }), deposit]);
    expect(accountCalls(encodeFunctionData({ abi: batchExecutorAbi, functionName: "execute", args: [SINGLE, packed] }))).toEqual([
      { target: vault, value: 7n, data: deposit },
    ]);
    const delegate = pad("0xff", { dir: "right", size: 32 });
    expect(accountCalls(encodeFunctionData({ abi: batchExecutorAbi, functionName: "execute", args: [delegate, packed] }))).toEqual([]);
  });

  it("reads SimpleAccount execute and both executeBatch forms, and the v0.6 / LightAccount form", () => {
    expect(accountCalls(encodeFunctionData({ abi: smartAccountAbi, functionName: "execute", args: [vault, 0n, deposit] }))).toEqual([expected[1]]);
    const v08 = encodeFunctionData({
      abi: smartAccountAbi,
      functionName: "executeBatch",
      args: [calls.map((c) => ({ target: c.to, value: c.value, data: c.data }))],
    });
    expect(accountCalls(v08)).toEqual(expected);
    const v07 = encodeFunctionData({
      abi: smartAccountAbi,
      functionName: "executeBatch",
      args: [calls.map((c) => c.to), calls.map((c) => c.value), calls.map((c) => c.data)],
    });
    expect(accountCalls(v07)).toEqual(expected);
    const v06 = encodeFunctionData({
      abi: parseAbi(["function executeBatch(address[],bytes[])"]),
      functionName: "executeBatch",
      args: [calls.map((c) => c.to), calls.map((c) => c.data)],
    });
    expect(accountCalls(v06)).toEqual(expected);
  });

  it("reads Safe's 4337 module call and skips its delegatecalls", () => {
    const abi = parseAbi(["function executeUserOp(address,uint256,bytes,uint8)"]);
    expect(accountCalls(encodeFunctionData({ abi, functionName: "executeUserOp", args: [vault, 0n, deposit, 0] }))).toEqual([expected[1]]);
    expect(accountCalls(encodeFunctionData({ abi, functionName: "executeUserOp", args: [vault, 0n, deposit, 1] }))).toEqual([]);
  });

  it("answers no calls for other calldata, never throws", () => {
    expect(accountCalls(deposit)).toEqual([]);
    expect(accountCalls("0x")).toEqual([]);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.constantFrom("0xe9ae5c53", "0xb61d27f6", "0x34fcd5be", "0x47e1da2a", "0x18dfb3c7"),
        (bytes, selector) => {
          const out = accountCalls(concat([selector as Hex, bytesToHex(bytes)]));
          expect(Array.isArray(out)).toBe(true);
        },
      ),
    );
  });
});

describe("decodeBatchCalls", () => {
  const v08 = encodeFunctionData({
    abi: smartAccountAbi,
    functionName: "executeBatch",
    args: [calls.map((c) => ({ target: c.to, value: c.value, data: c.data }))],
  });

  it("an account's own batch: the sender is the account the transaction went to", () => {
    const input = encodeFunctionData({
      abi: batchExecutorAbi,
      functionName: "execute",
      args: [
        BATCH,
        encodeAbiParameters(
          [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }],
          [calls.map((c) => [c.to, c.value, c.data] as const)],
        ),
      ],
    });
    const out = decodeBatchCalls({ to: account.toLowerCase() as Address, input, entryPoints: [] });
    expect(out).toEqual(expected.map((c, index) => ({ ...c, sender: account, via: "account", index })));
  });

  it("handleOps on a trusted EntryPoint: each operation's calls are its sender's, indexed across operations", () => {
    const other = getAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    const input = encodeFunctionData({ abi: entryPointAbi, functionName: "handleOps", args: [[op(account, v08), op(other, v08)], account] });
    const out = decodeBatchCalls({ to: entryPoint, input, entryPoints: [entryPoint] });
    expect(out.map((c) => [c.sender, c.target, c.via, c.index])).toEqual([
      [account, token, "entry-point", 0],
      [account, vault, "entry-point", 1],
      [other, token, "entry-point", 2],
      [other, vault, "entry-point", 3],
    ]);
    // On any other contract, the operations' senders are only names in calldata: nothing is read.
    expect(decodeBatchCalls({ to: vault, input, entryPoints: [entryPoint] })).toEqual([]);
    expect(CANONICAL_ENTRY_POINTS).toHaveLength(2);
  });

  it("property: any batch of calls round-trips through every batch encoding", () => {
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(bytesToHex(b)));
    const call = fc.record({
      target: address,
      value: fc.bigInt({ min: 0n, max: 2n ** 96n }),
      data: fc.uint8Array({ maxLength: 100 }).map((b) => bytesToHex(b)),
    });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 6 }), address, (cs, sender) => {
        const norm = cs;
        const inputs = [
          encodeFunctionData({
            abi: batchExecutorAbi,
            functionName: "execute",
            args: [
              BATCH,
              encodeAbiParameters(
                [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }],
                [norm.map((c) => [c.target, c.value, c.data] as const)],
              ),
            ],
          }),
          encodeFunctionData({ abi: smartAccountAbi, functionName: "executeBatch", args: [norm] }),
          encodeFunctionData({
            abi: smartAccountAbi,
            functionName: "executeBatch",
            args: [norm.map((c) => c.target), norm.map((c) => c.value), norm.map((c) => c.data)],
          }),
        ];
        for (const input of inputs) {
          const out = decodeBatchCalls({ to: sender, input, entryPoints: [] });
          expect(out.map(({ target, value, data }) => ({ target, value, data }))).toEqual(norm);
          expect(out.every((c) => c.sender === sender)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });
});
