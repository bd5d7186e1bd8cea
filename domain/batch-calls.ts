// The calls an atomic batch makes, read from its transaction's calldata: an account's own batch (an
// EIP-7702 account running ERC-7821 `execute`, or a smart account's `execute`/`executeBatch` called by its
// owner) and ERC-4337 `handleOps` on an EntryPoint (each operation's callData run by its sender). Each call
// keeps its own target and calldata, and its sender is the account that makes it.
import { decodeAbiParameters, decodeFunctionData, getAddress, parseAbi, slice, toFunctionSelector, type Address, type Hex } from "viem";
import { batchExecutorAbi, entryPointAbi, smartAccountAbi } from "../abis/index.js";
import { sameAddress } from "./address.js";

/** EntryPoint v0.7 and v0.8 at their canonical addresses (the devnet's own comes from the deployments file). */
export const CANONICAL_ENTRY_POINTS: readonly Address[] = ["0x0000000071727De22E5E9d8BAf0edAc6f37da032", "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"];

/** How a call sits in its transaction: made by the account the transaction was sent to, or through an EntryPoint. */
export type BatchVia = "account" | "entry-point";

export type BatchCall = {
  /** The account that makes the call (msg.sender at the target). */
  sender: Address;
  target: Address;
  data: Hex;
  value: bigint;
  via: BatchVia;
  /** The call's place among the transaction's decoded calls, from 0. */
  index: number;
};

export type DecodeBatchCallsParameters = {
  /** The transaction's `to` (null for a contract creation). */
  to: Address | null;
  input: Hex;
  /** EntryPoints whose `handleOps` is trusted to run each operation as its sender. */
  entryPoints: readonly Address[];
};
export type DecodeBatchCallsReturnType = BatchCall[];

// Batch encodings of common smart accounts beyond the devnet's reference contracts: SimpleAccount v0.6 and
// LightAccount `executeBatch(address[], bytes[])`, Kernel v2 `execute(.., operation)`, and Safe's 4337
// module `executeUserOp`/`executeUserOpWithErrorString` (operation 0 is a call; 1, a delegatecall, is not).
const otherAccountsAbi = parseAbi([
  "function executeBatch(address[] dest, bytes[] func)",
  "function execute(address to, uint256 value, bytes data, uint8 operation)",
  "function executeUserOp(address to, uint256 value, bytes data, uint8 operation)",
  "function executeUserOpWithErrorString(address to, uint256 value, bytes data, uint8 operation)",
]);
const accountAbi = [...batchExecutorAbi, ...smartAccountAbi, ...otherAccountsAbi];
const accountSelectors = new Set(
  accountAbi.filter((item) => item.type === "function" && item.name.startsWith("execute")).map((item) => toFunctionSelector(item as never)),
);
const HANDLE_OPS = toFunctionSelector("handleOps((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes)[],address)");
const callTuples = [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }] as const;

type Call = { target: Address; value: bigint; data: Hex };

/** The calls `sender` makes when it runs `data` as an account, or none when `data` is no known batch encoding. */
export function accountCalls(data: Hex): Call[] {
  if (data.length < 10 || !accountSelectors.has(slice(data, 0, 4))) return [];
  let call: { functionName: string; args: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi: accountAbi, data }) as never;
  } catch {
    return [];
  }
  const a = call.args;
  switch (call.functionName) {
    case "execute":
      if (a.length === 2) return erc7821Calls(a[0] as Hex, a[1] as Hex);
      if (a.length === 4 && a[3] !== 0) return [];
      return [{ target: a[0] as Address, value: a[1] as bigint, data: a[2] as Hex }];
    case "executeUserOp":
    case "executeUserOpWithErrorString":
      return a[3] === 0 ? [{ target: a[0] as Address, value: a[1] as bigint, data: a[2] as Hex }] : [];
    case "executeBatch": {
      if (a.length === 1)
        return (a[0] as readonly { target: Address; value: bigint; data: Hex }[]).map((c) => ({ target: c.target, value: c.value, data: c.data }));
      const targets = a[0] as readonly Address[];
      const datas = a[a.length - 1] as readonly Hex[];
      const values = a.length === 3 ? (a[1] as readonly bigint[]) : [];
      if (targets.length !== datas.length) return [];
      return targets.map((target, i) => ({ target, value: values[i] ?? 0n, data: datas[i]! }));
    }
    default:
      return [];
  }
}

/**
 * ERC-7821 / ERC-7579 `execute(mode, executionData)`: call type 0x01 (batch) is `abi.encode(Call[])`, or
 * `abi.encode(Call[], opData)`, which starts the same way; call type 0x00 (single, ERC-7579) is
 * `abi.encodePacked(target, value, callData)`. Delegatecalls (0xff) make no call of their own.
 */
function erc7821Calls(mode: Hex, executionData: Hex): Call[] {
  const callType = mode.slice(2, 4);
  try {
    if (callType === "01") {
      const [calls] = decodeAbiParameters(callTuples, executionData);
      return calls.map(([target, value, data]) => ({ target, value, data }));
    }
    if (callType === "00" && executionData.length >= 2 + 2 * 52) {
      return [{ target: getAddress(slice(executionData, 0, 20)), value: BigInt(slice(executionData, 20, 52)), data: slice(executionData, 52) }];
    }
  } catch {
    return [];
  }
  return [];
}

/**
 * Every call the transaction's batch makes, in order. A transaction to an account is read as the account's
 * own batch (sender: the account); `handleOps` is read only on a trusted EntryPoint, since the operations'
 * senders are whoever the calldata names. Anything else decodes to no calls. One level deep: an operation's
 * callData is read as its account's batch, and the batch's calls are taken as they are.
 */
export function decodeBatchCalls({ to, input, entryPoints }: DecodeBatchCallsParameters): DecodeBatchCallsReturnType {
  if (!to || input.length < 10) return [];
  const out: BatchCall[] = [];
  const push = (sender: Address, via: BatchVia, calls: Call[]) => {
    for (const c of calls) out.push({ sender: getAddress(sender), target: getAddress(c.target), data: c.data, value: c.value, via, index: out.length });
  };
  if (slice(input, 0, 4) === HANDLE_OPS && entryPoints.some((e) => sameAddress(e, to))) {
    let ops: readonly { sender: Address; callData: Hex }[];
    try {
      ops = decodeFunctionData({ abi: entryPointAbi, data: input }).args[0] as never;
    } catch {
      return [];
    }
    for (const op of ops) push(op.sender, "entry-point", accountCalls(op.callData));
    return out;
  }
  push(to, "account", accountCalls(input));
  return out;
}
