// Appends changes to the activity log: one row per change per owner, at a position that strictly
// increases along the chain (block, log index, row within the log).
import type { Context, Event } from "ponder:registry";
import { activity, executedCall } from "ponder:schema";
import type { ActivityKind } from "../domain/activity-kinds.js";
import { activityPosition } from "../domain/activity-position.js";
import { executedCallsOf } from "../domain/executed-calls.js";
import { entryPoints, isReportedElsewhere, isServiceContract } from "./deployments.js";
import { type Address, zeroAddress } from "viem";

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

type LogEvent = Pick<Event, "block" | "transaction"> & { log: { logIndex: number; address: Address } };

export async function logChanges(context: Context, event: LogEvent, changes: Change[]) {
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
  await recordExecutedCalls(
    context,
    event,
    changes.map((c) => c.owner),
  );
}

/**
 * Every user action emits a change, so the transactions behind changes hold the executed calls of the
 * service's contracts (the devnet has no traces, and scanning every block's transactions is far slower):
 * the transaction itself when it went to a service contract, else the calls of its atomic batch made by an
 * owner of this event's changes to the contract that emitted it (domain/executed-calls.ts).
 * A reverted transaction emits nothing and is, rightly, never matched as executed.
 */
async function recordExecutedCalls(context: Context, event: LogEvent, owners: Address[]) {
  const calls = executedCallsOf({
    transaction: event.transaction,
    event: { address: event.log.address, owners },
    isServiceContract,
    reportedElsewhere: isReportedElsewhere,
    entryPoints,
  });
  if (calls.length === 0) return;
  await context.db
    .insert(executedCall)
    .values(calls.map((c) => ({ ...c, success: true, blockNumber: event.block.number, timestamp: Number(event.block.timestamp) })))
    .onConflictDoNothing();
}
