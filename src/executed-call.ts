// One home for storing an executed call, whichever path found it (the events path, src/activity.ts, or the
// call traces, src/call-traces.ts): a successful call at its block, once (a replayed event or trace is a no-op).
import type { Context } from "ponder:registry";
import { executedCall } from "ponder:schema";
import type { ExecutedCall } from "../domain/executed-calls.js";

export async function storeExecutedCall(
  context: Context,
  call: ExecutedCall,
  at: { block: { number: bigint; timestamp: bigint }; transaction: { transactionIndex: number } },
): Promise<void> {
  await context.db
    .insert(executedCall)
    .values({ ...call, success: true, blockNumber: at.block.number, transactionIndex: at.transaction.transactionIndex, timestamp: Number(at.block.timestamp) })
    .onConflictDoNothing();
}
