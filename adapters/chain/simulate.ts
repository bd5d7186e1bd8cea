// Simulates an unsigned bundle against the chain before it is handed out. Separate eth_calls do not
// see each other's approvals, so: eth_simulateV1 where the node has it (state carries from call to
// call); otherwise each non-approval step is eth_called with a state override that grants the
// approvals before it (the allowance slot of each token is found once by probing).
import {
  BaseError,
  ContractFunctionRevertedError,
  HttpRequestError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  decodeErrorResult,
  decodeFunctionData,
  encodeAbiParameters,
  erc20Abi,
  keccak256,
  numberToHex,
  pad,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type StateOverride,
} from "viem";
import * as abis from "../../abis/index.js";

export type SimStep = { to: Address; data: Hex; value?: bigint };
export type SimulationResult =
  | { ok: true; method: "eth_simulateV1" | "eth_call+stateOverride" }
  | { ok: false; method: "eth_simulateV1" | "eth_call+stateOverride"; step: number; reason: string };

const allAbis = Object.values(abis) as Abi[];

/** "SWAP_CONTRACTS_CHANGED" for Error(string), "FIRST_TOO_SMALL 0 10000000" for a custom error. */
function describeError(errorName: string, args: readonly unknown[] | undefined): string {
  if (errorName === "Error") return String(args?.[0] ?? "reverted");
  return [errorName, ...(args ?? []).map(String)].join(" ");
}
/** True when the node gave no answer at all (down, unreachable, timed out): not a revert. */
export function nodeUnreachable(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    !!error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError || e instanceof SocketClosedError)
  );
}

/** Revert data: 0x and at least a 4-byte selector, whole bytes. */
const REVERT_DATA = /^0x(?:[0-9a-fA-F]{2}){4,}$/;
/**
 * Revert data quoted in a node's message text (Hardhat: "(return data: 0x…)", Anvil: "custom error 0x…").
 * Never a bare "data:": viem's own messages print the call's calldata so.
 */
const DATA_IN_TEXT = /(?:return data|revert data|custom error)\s*[:=]?\s*(0x(?:[0-9a-fA-F]{2}){4,})/i;

/** The revert data in one error's `data`: a hex string, or nested in an object (`{data}`, `{originalError: {data}}`, Hardhat's `{message, data}`). */
function dataIn(value: unknown, depth = 0): Hex | undefined {
  if (typeof value === "string") return REVERT_DATA.test(value) ? (value as Hex) : undefined;
  if (value === null || typeof value !== "object" || depth > 3) return undefined;
  for (const key of ["data", "originalError", "error"]) {
    const found = dataIn((value as Record<string, unknown>)[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The revert data of a failed call, from every form nodes answer it in: an error's `data` (a string, or
 * nested: Hardhat's JSON-RPC -32603 carries `{message, data}`), anywhere down the `cause` chain, else
 * quoted in a message's text. Undefined when no error carries any.
 */
export function revertData(error: unknown): Hex | undefined {
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== null && e !== undefined && chain.length < 12; e = (e as { cause?: unknown }).cause) chain.push(e);
  for (const e of chain) {
    const found = typeof e === "object" ? dataIn((e as { data?: unknown }).data) : undefined;
    if (found) return found;
  }
  for (const e of chain) {
    for (const text of [(e as { details?: unknown }).details, (e as { message?: unknown }).message]) {
      const match = typeof text === "string" ? DATA_IN_TEXT.exec(text) : null;
      if (match) return match[1] as Hex;
    }
  }
  return undefined;
}

/** `data` decoded with every ABI of the project (their custom errors, OpenZeppelin's ERC-20 errors, Error(string)); undefined when none knows it. */
function decodeRevert(data: Hex): string | undefined {
  for (const abi of allAbis) {
    try {
      const decoded = decodeErrorResult({ abi, data });
      return describeError(decoded.errorName, decoded.args);
    } catch {
      /* not this ABI */
    }
  }
  return undefined;
}

/**
 * The revert reason of a failed call, decoded with every ABI of the project. A call the node never
 * answered is rethrown: it is no refusal (the API answers it 503 UNAVAILABLE, not 422).
 */
export function revertReason(error: unknown): string {
  if (nodeUnreachable(error)) throw error;
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (reverted?.data?.errorName) return describeError(reverted.data.errorName, reverted.data.args);
    if (reverted?.reason) return reverted.reason;
  }
  const data = revertData(error);
  const decoded = data ? decodeRevert(data) : undefined;
  if (decoded) return decoded;
  const message = error instanceof Error ? error.message : String(error);
  const match = /reverted with reason string '([^']+)'/.exec(message) ?? /reverted: ([A-Z_]+)/.exec(message);
  if (match) return match[1]!;
  // Data no ABI of the project knows: its selector at least, never a node's "internal error".
  if (data) return `unknown error ${data.slice(0, 10)}`;
  return error instanceof BaseError ? error.shortMessage : message;
}

/** The storage key of `balances[owner]` for a `mapping(address => uint256)` at `slot` (Solidity layout). */
export function balanceKey(slot: bigint, owner: Address): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [owner, slot]));
}

function allowanceKey(slot: bigint, owner: Address, spender: Address): Hex {
  const inner = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [owner, slot]));
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [spender, inner]));
}

const PROBE = 0x5eedn;
const PROBE_OWNER = "0x00000000000000000000000000000000000a11ce" as Address;
const PROBE_SPENDER = "0x0000000000000000000000000000000000000b0b" as Address;

/**
 * The first slot under 20 that `read` answers PROBE for once PROBE is written at `keyOf(slot)` by a state
 * override, or null; a read that reverts counts as a miss, a node that cannot be reached throws.
 */
async function probeSlot(token: Address, keyOf: (slot: bigint) => Hex, read: (stateOverride: StateOverride) => Promise<bigint>): Promise<bigint | null> {
  for (let slot = 0n; slot < 20n; slot++) {
    const value = await read([{ address: token, stateDiff: [{ slot: keyOf(slot), value: pad(numberToHex(PROBE), { size: 32 }) }] }]).catch((error: unknown) => {
      if (nodeUnreachable(error)) throw error;
      return 0n;
    });
    if (value === PROBE) return slot;
  }
  return null;
}

function approvalOf(step: SimStep): { spender: Address; amount: bigint } | null {
  try {
    const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: step.data });
    if (functionName === "approve") return { spender: args[0], amount: args[1] };
  } catch {
    /* not an approval */
  }
  return null;
}

/**
 * Bundles simulated on one chain (its client): made once at start, it keeps what a chain tells once, each
 * token's storage layout (found by probing) and whether its node has eth_simulateV1 (asked once: a JSON-RPC
 * round trip less per bundle where it has not).
 */
export class ChainSimulator {
  readonly client: PublicClient;
  readonly #allowanceSlots = new Map<string, bigint>();
  readonly #balanceSlots = new Map<string, bigint | null>();
  #simulateV1 = true;

  constructor(client: PublicClient) {
    this.client = client;
  }

  /**
   * `grants`: state the bundle is simulated over (e.g. the owner's balance of a token it is short of:
   * adapters/chain/bundle-funds.ts), as stateDiff entries.
   */
  async simulate(from: Address, steps: SimStep[], grants: StateOverride = []): Promise<SimulationResult> {
    const simulated = this.#simulateV1 ? await this.#simulateV1Call(from, steps, grants) : null;
    if (simulated) return simulated;
    const overrides: StateOverride = [...grants];
    for (const [i, step] of steps.entries()) {
      const approval = approvalOf(step);
      if (approval) {
        const slot = await this.allowanceSlot(step.to);
        overrides.push({
          address: step.to,
          stateDiff: [{ slot: allowanceKey(slot, from, approval.spender), value: pad(numberToHex(approval.amount), { size: 32 }) }],
        });
        continue;
      }
      try {
        await this.client.call({ account: from, to: step.to, data: step.data, value: step.value ?? 0n, stateOverride: merge(overrides) });
      } catch (error) {
        return { ok: false, method: "eth_call+stateOverride", step: i, reason: revertReason(error) };
      }
    }
    return { ok: true, method: "eth_call+stateOverride" };
  }

  /** The storage slot of an ERC20's allowance mapping, found by overriding candidates and reading back. */
  async allowanceSlot(token: Address): Promise<bigint> {
    const cached = this.#allowanceSlots.get(token.toLowerCase());
    if (cached !== undefined) return cached;
    const slot = await probeSlot(
      token,
      (at) => allowanceKey(at, PROBE_OWNER, PROBE_SPENDER),
      (stateOverride) =>
        this.client.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [PROBE_OWNER, PROBE_SPENDER], stateOverride }),
    );
    if (slot === null) throw new Error(`cannot find the allowance slot of ${token}`);
    this.#allowanceSlots.set(token.toLowerCase(), slot);
    return slot;
  }

  /**
   * The storage slot of an ERC20's balance mapping, found as the allowance slot is; null when no slot
   * under 20 answers (a token of another layout): its balance cannot be granted by an override.
   */
  async balanceSlot(token: Address): Promise<bigint | null> {
    const cached = this.#balanceSlots.get(token.toLowerCase());
    if (cached !== undefined) return cached;
    const slot = await probeSlot(
      token,
      (at) => balanceKey(at, PROBE_OWNER),
      (stateOverride) => this.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [PROBE_OWNER], stateOverride }),
    );
    this.#balanceSlots.set(token.toLowerCase(), slot);
    return slot;
  }

  /** eth_simulateV1, or null when the node does not have it (then not asked again). */
  async #simulateV1Call(from: Address, steps: SimStep[], grants: StateOverride): Promise<SimulationResult | null> {
    try {
      return await simulateV1(this.client, from, steps, grants);
    } catch (error) {
      if (nodeUnreachable(error)) throw error;
      if (error instanceof BaseError && error.walk((e) => e instanceof MethodNotSupportedRpcError || e instanceof MethodNotFoundRpcError))
        this.#simulateV1 = false;
      return null;
    }
  }
}

/** Several approvals of one token become one override entry (a node wants one per address). */
function merge(overrides: StateOverride): StateOverride {
  const byAddress = new Map<string, { address: Address; stateDiff: { slot: Hex; value: Hex }[] }>();
  for (const o of overrides) {
    const entry = byAddress.get(o.address.toLowerCase()) ?? { address: o.address, stateDiff: [] };
    entry.stateDiff.push(...(o.stateDiff ?? []));
    byAddress.set(o.address.toLowerCase(), entry);
  }
  return [...byAddress.values()];
}

/** eth_simulateV1 (throws when the node does not have it, or cannot be reached). */
async function simulateV1(client: PublicClient, from: Address, steps: SimStep[], grants: StateOverride): Promise<SimulationResult> {
  // eth_simulateV1 takes the overrides as {address: {stateDiff: {slot: value}}}.
  const stateOverrides = Object.fromEntries(
    merge(grants).map((o) => [o.address, { stateDiff: Object.fromEntries((o.stateDiff ?? []).map((d) => [d.slot, d.value])) }]),
  );
  const results = (await client.request({
    method: "eth_simulateV1" as never,
    params: [
      {
        blockStateCalls: [
          { ...(grants.length ? { stateOverrides } : {}), calls: steps.map((s) => ({ from, to: s.to, data: s.data, value: numberToHex(s.value ?? 0n) })) },
        ],
        validation: false,
      },
      "latest",
    ] as never,
  })) as unknown as { calls: { status: Hex; returnData: Hex; error?: { message: string; data?: Hex } }[] }[];
  const calls = results[0]?.calls ?? [];
  const failed = calls.findIndex((c) => c.status !== "0x1");
  if (failed === -1) return { ok: true, method: "eth_simulateV1" };
  const data = dataIn(calls[failed]!.error?.data) ?? dataIn(calls[failed]!.returnData);
  const reason = (data && decodeRevert(data)) ?? calls[failed]!.error?.message ?? "reverted";
  return { ok: false, method: "eth_simulateV1", step: failed, reason };
}
