// The calls an owner made to a service contract in one transaction, as the indexer records them for the
// report card. A transaction sent to a service contract is itself the call. A transaction to an account (its
// own atomic batch) or to an EntryPoint carries inner calls (domain/batch-calls.ts): each is recorded only
// when an event of that transaction confirms it (domain/bundles/confirmations.ts), one event one call, in
// call order, so that a batch cannot claim a call it did not make. A reverted inner call (a failed user
// operation, an ERC-7579 "try" call) emits nothing, so nothing confirms it. The transaction is read once,
// however many events it has, and a batch is read up to MAX_BATCH_CALLS calls, one level deep (an
// operation's callData as its account's batch; a batch inside a call is not opened).
// Where the RPC has call traces (CALL_TRACES=on), a call is recorded from its own successful trace instead
// (tracedCall): what the chain ran, from whom, with the calldata it ran, and no event is needed.
import { slice, type Address, type Hex } from "viem";
import { decodeBatchCalls, type BatchVia } from "./batch-calls.js";
import { confirmableCall, confirms, type ConfirmableCall, type ConfirmingEvent } from "./bundles/confirmations.js";

export type { ConfirmingEvent } from "./bundles/confirmations.js";

/** The most calls of one batch the indexer reads; the rest are not recorded (and counted). */
export const MAX_BATCH_CALLS = 256;

export type ExecutedCall = {
  /** The transaction hash for a transaction sent to the service contract; `hash:index` for an inner call. */
  id: string;
  txHash: Hex;
  from: Address;
  to: Address;
  input: Hex;
  selector: Hex;
  /** null for the transaction itself; "contract" (traces only): made by a contract the transaction called, not an account's batch. */
  via: BatchVia | "contract" | null;
  /**
   * The call's place in its transaction: 0 for the transaction itself; for an inner call, its index in the
   * decoded batch (events), or its place in the transaction's call tree, depth first (traces). Either way,
   * later calls have higher indexes, so filings are matched in call order.
   */
  callIndex: number;
};

type PendingCall = { call: ExecutedCall; confirmable: ConfirmableCall };

/** A transaction's calls as read once: the transaction itself, or its batch's confirmable calls. */
export type TransactionCalls =
  | { kind: "direct"; call: ExecutedCall }
  | { kind: "batch"; pending: PendingCall[]; decoded: number; dropped: number }
  | { kind: "none" };

export type TransactionCallsParameters = {
  transaction: { hash: Hex; from: Address; to: Address | null; input: Hex };
  isServiceContract: (address: Address) => boolean;
  entryPoints: readonly Address[];
  maxCalls?: number;
};

const lower = (a: string) => a.toLowerCase() as Address;
const selectorOf = (input: Hex): Hex => (input.length >= 10 ? slice(input, 0, 4) : "0x");

export function transactionCalls({
  transaction: tx,
  isServiceContract,
  entryPoints,
  maxCalls = MAX_BATCH_CALLS,
}: TransactionCallsParameters): TransactionCalls {
  if (!tx.to) return { kind: "none" };
  const base = { txHash: tx.hash };
  if (isServiceContract(tx.to)) {
    return {
      kind: "direct",
      call: { ...base, id: tx.hash, from: lower(tx.from), to: lower(tx.to), input: lower(tx.input), selector: selectorOf(tx.input), via: null, callIndex: 0 },
    };
  }
  const decoded = decodeBatchCalls({ to: tx.to, input: tx.input, entryPoints });
  if (decoded.length === 0) return { kind: "none" };
  const pending: PendingCall[] = [];
  for (const c of decoded.slice(0, maxCalls)) {
    if (!isServiceContract(c.target)) continue;
    const confirmable = confirmableCall({ sender: c.sender, target: c.target, data: c.data });
    if (!confirmable) continue;
    const call = {
      ...base,
      id: `${tx.hash}:${c.index}`,
      from: lower(c.sender),
      to: lower(c.target),
      input: lower(c.data),
      selector: selectorOf(c.data),
      via: c.via,
      callIndex: c.index,
    };
    pending.push({ call, confirmable });
  }
  return { kind: "batch", pending, decoded: decoded.length, dropped: Math.max(0, decoded.length - maxCalls) };
}

/**
 * The first call of the batch, in call order, that the event confirms and that no event confirmed before
 * (`isRecorded`: the index's own rows, so that a restart or a retried batch of events sees what was written,
 * and nothing is kept in memory that a rollback would leave behind). Null when the event confirms none.
 */
export async function confirmNextCall(
  calls: TransactionCalls,
  event: ConfirmingEvent,
  isRecorded: (id: string) => Promise<boolean> | boolean,
): Promise<ExecutedCall | null> {
  if (calls.kind !== "batch") return null;
  for (const p of calls.pending) if (confirms(p.confirmable, event) && !(await isRecorded(p.call.id))) return p.call;
  return null;
}

export type TracedCallParameters = {
  transaction: { hash: Hex; from: Address; to: Address | null };
  /** A successful CALL from Ponder's call traces (a reverted call, or one inside a reverted frame, never comes). */
  trace: { from: Address; to: Address | null; input: Hex; traceIndex: number };
  isServiceContract: (address: Address) => boolean;
  entryPoints: readonly Address[];
};

/**
 * The executed call a successful call trace to a service contract is: from the trace's caller (msg.sender:
 * the account itself in a 7702 or 4337 batch), with the calldata the chain ran. The transaction itself
 * (trace 0) keeps the transaction's hash as its id; an inner call is `hash:traceIndex`. Null for a call a
 * service contract makes itself (the stock-vault router's call to a vault): the user's call is the router's.
 */
export function tracedCall({ transaction: tx, trace, isServiceContract, entryPoints }: TracedCallParameters): ExecutedCall | null {
  if (!trace.to || isServiceContract(trace.from)) return null;
  const call = { txHash: tx.hash, from: lower(trace.from), to: lower(trace.to), input: lower(trace.input), selector: selectorOf(trace.input) };
  if (trace.traceIndex === 0) return { ...call, id: tx.hash, via: null, callIndex: 0 };
  const via =
    tx.to && lower(trace.from) === lower(tx.to) ? "account" : tx.to && entryPoints.some((e) => lower(e) === lower(tx.to!)) ? "entry-point" : "contract";
  return { ...call, id: `${tx.hash}:${trace.traceIndex}`, via, callIndex: trace.traceIndex };
}
