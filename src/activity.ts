// Appends changes to the activity log: one row per change per owner, at a position that strictly
// increases along the chain (block, log index, row within the log).
import type { Context, Event } from "ponder:registry";
import { activity, executedCall } from "ponder:schema";
import type { ActivityKind } from "../domain/activity-kinds.js";
import { activityPosition } from "../domain/activity-position.js";
import { confirmNextCall, transactionCalls, type TransactionCalls } from "../domain/executed-calls.js";
import { entryPoints, isServiceContract } from "./deployments.js";
import { storeExecutedCall } from "./executed-call.js";
import { config } from "../adapters/config.js";
import { reportDroppedCalls } from "./batch-bound.js";
import { type Address, type Hex, zeroAddress } from "viem";

type Data = Record<string, string | number | boolean | null>;
export type Change = { owner: Address; kind: ActivityKind; subject: string; data: Data };

/** Bigints become decimal strings, so the log stays JSON. */
export function amounts(values: Record<string, bigint | number | string | boolean | null>): Data {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]));
}

/** A transfer's two sides as changes of balance: the sender's `-value`, the receiver's `value`. */
export const transferSides = (from: Address, to: Address, value: bigint) =>
  [
    [from, -value],
    [to, value],
  ] as const;

/** A transfer's activity rows, one per side, each naming the other side (a mint's or burn's zero address is dropped by logChanges). */
export function transferChanges(kind: ActivityKind, subject: string, from: Address, to: Address, value: bigint): Change[] {
  return [
    { owner: from, kind, subject, data: amounts({ delta: -value, counterparty: to }) },
    { owner: to, kind, subject, data: amounts({ delta: value, counterparty: from }) },
  ];
}

type LogEvent = Pick<Event, "block" | "transaction"> & { log: { logIndex: number; address: Address; topics: readonly Hex[] } };

export async function logChanges(context: Context, event: LogEvent & { args: object }, changes: Change[]) {
  const rows = changes
    .filter((c) => c.owner !== zeroAddress)
    .map((c, i) => ({
      owner: c.owner,
      position: activityPosition(event.block.number, event.log.logIndex, i),
      kind: c.kind,
      subject: c.subject,
      contract: event.log.address,
      data: c.data,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      blockHash: event.block.hash,
      logIndex: event.log.logIndex,
      timestamp: Number(event.block.timestamp),
    }));
  if (rows.length) await context.db.insert(activity).values(rows);
  await recordExecutedCalls(context, event);
}

/** The transactions whose calls were read, newest last: a transaction's events come one after another. */
const readCalls = new Map<string, TransactionCalls>();
const callTraces = config.CALL_TRACES === "on";
const KEEP_TRANSACTIONS = 16;

/**
 * The transaction's calls, read once per transaction (per block, so a reorg reads its new copy afresh). Only
 * what the transaction's calldata says is kept: what was recorded is read from the index, never remembered.
 */
function callsOf(event: LogEvent): TransactionCalls {
  const key = `${event.block.hash}:${event.transaction.hash}`;
  let calls = readCalls.get(key);
  if (calls) return calls;
  calls = transactionCalls({ transaction: event.transaction, isServiceContract, entryPoints });
  if (calls.kind === "batch" && calls.dropped > 0) reportDroppedCalls(event.transaction.hash, calls.decoded, calls.dropped);
  readCalls.set(key, calls);
  if (readCalls.size > KEEP_TRANSACTIONS) readCalls.delete(readCalls.keys().next().value!);
  return calls;
}

/**
 * The report card's executed calls, from the transactions of indexed events, where the RPC has no call
 * traces (CALL_TRACES=off: the devnet's EDR has no callTracer; scanning every block's transactions is far
 * slower): the transaction itself when it went to a service contract, else the call of its batch that this
 * event confirms (domain/executed-calls.ts). A reverted
 * transaction emits nothing and is, rightly, never matched as executed. Called for every event that can
 * confirm a call: those that log changes, and the routers' and the zap's own events.
 */
export async function recordExecutedCalls(context: Context, event: LogEvent & { args: object }) {
  // With call traces the traces record every call (src/call-traces.ts): an event must not credit one again.
  if (callTraces) return;
  const calls = callsOf(event);
  const call =
    calls.kind === "direct"
      ? calls.call
      : await confirmNextCall(
          calls,
          { emitter: event.log.address, topic: event.log.topics[0], args: event.args as Record<string, unknown> },
          async (id) => (await context.db.find(executedCall, { id })) !== null,
        );
  if (!call) return;
  await storeExecutedCall(context, call, event);
}
