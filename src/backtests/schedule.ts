// The scans' schedule: one BullMQ job scheduler per scan kind on the `scan` queue (every 10 minutes;
// the first run at once). Upserting is idempotent: every worker process may call it at start.
import type { Queue } from "bullmq";
import { readServiceChainState } from "../chain/service-state.js";
import type { Deployments } from "../chain/deployments.js";
import type { PublicClient } from "viem";
import { SCAN_EVERY_MS, scanKinds, type LiveFees } from "./scans.js";

export async function scheduleScans(queue: Queue, everyMs = SCAN_EVERY_MS): Promise<void> {
  for (const kind of scanKinds) {
    await queue.upsertJobScheduler(`scan-${kind}`, { every: everyMs }, { name: kind, data: {}, opts: { removeOnComplete: 50, removeOnFail: 50 } });
  }
}

/** The live strategy fees read from the chain (grid strategy, ladder strategy, limit-order hook). */
export function chainFees(client: PublicClient | undefined, deployments: Deployments): () => Promise<LiveFees> {
  let last: LiveFees | undefined;
  return async () => {
    if (!client) throw new Error("no chain RPC is configured: the live strategy fees cannot be read");
    try {
      const s = await readServiceChainState(client, deployments.contracts);
      // The fees are immutable; a contract missing here keeps the other products' figures.
      last = { gridFeeBps: s.gridStrategy?.feeBps ?? 0, ladderFeeBps: s.ladderStrategy?.feeBps ?? s.gridStrategy?.feeBps ?? 0, hookFeeBps: s.limitOrderHook?.feeBps ?? 0 };
      return last;
    } catch (error) {
      if (last) return last;
      throw error;
    }
  };
}
