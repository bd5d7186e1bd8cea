// Appends changes to the activity log: one row per change per owner, at a position that strictly
// increases along the chain (block, log index, row within the log).
import type { Context, Event } from "ponder:registry";
import { activity, executedCall } from "ponder:schema";
import { slice } from "viem";
import { activityPosition } from "../domain/activity-position.js";
import { isServiceContract } from "./deployments.js";
import type { Address } from "viem";

type Data = Record<string, string | number | boolean | null>;
export type Change = { owner: Address; kind: string; subject: string; data: Data };

const ZERO = "0x0000000000000000000000000000000000000000";

/** Bigints become decimal strings, so the log stays JSON. */
export function amounts(values: Record<string, bigint | number | string | boolean | null>): Data {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]));
}

type LogEvent = Pick<Event, "block" | "transaction"> & { log: { logIndex: number; address: Address } };

export async function logChanges(context: Context, event: LogEvent, changes: Change[]) {
  const rows = changes
    .filter((c) => c.owner !== ZERO)
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
  await recordExecutedCall(context, event);
}

/**
 * Every user action emits a change, so the transactions behind changes are the executed calls of the
 * service's contracts (the devnet has no traces, and scanning every block's transactions is far slower).
 * A reverted transaction emits nothing and is, rightly, never matched as executed.
 */
async function recordExecutedCall(context: Context, event: LogEvent) {
  const { hash, from, to, input } = event.transaction;
  if (!isServiceContract(to)) return;
  await context.db
    .insert(executedCall)
    .values({
      txHash: hash,
      from,
      to: to!,
      input,
      selector: input.length >= 10 ? slice(input, 0, 4) : "0x",
      success: true,
      blockNumber: event.block.number,
      timestamp: Number(event.block.timestamp),
    })
    .onConflictDoNothing();
}
