// The scans' schedule: one BullMQ job scheduler per scan kind on the `scan` queue (every 10 minutes;
// the first run at once). Upserting is idempotent: every worker process may call it at start.
// A failed scan (the index not ready yet, the RPC down) is tried again SCAN_RETRY_SECONDS later, and
// the worker starts every scan as soon as the index becomes ready (runScansNow).
import type { JobsOptions, Queue } from "bullmq";
import { readServiceChainState } from "../../adapters/chain/service-state.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { PublicClient } from "viem";
import { SCAN_EVERY_MS, SCAN_RETRY_SECONDS, scanKinds, type LiveFees } from "./scans.js";

/** Tries of one scan run, SCAN_RETRY_SECONDS apart (the next scheduled run follows anyway). */
const SCAN_ATTEMPTS = 20;
const scanJobOptions = {
  removeOnComplete: 50,
  removeOnFail: 50,
  attempts: SCAN_ATTEMPTS,
  backoff: { type: "fixed", delay: SCAN_RETRY_SECONDS * 1000 },
} satisfies JobsOptions;

export async function scheduleScans(queue: Queue, everyMs = SCAN_EVERY_MS): Promise<void> {
  for (const kind of scanKinds) {
    await queue.upsertJobScheduler(`scan-${kind}`, { every: everyMs }, { name: kind, data: {}, opts: scanJobOptions });
  }
}

/**
 * Every scan, now: the index just became ready (or is a new one). `tag` names that index (its views'
 * generation and chain), so the workers of one deployment that see the same change add each job once.
 */
export async function runScansNow(queue: Queue, tag: string): Promise<void> {
  const safe = tag.replace(/[^A-Za-z0-9_-]/g, "_"); // BullMQ job ids may not hold ':'
  for (const kind of scanKinds) await queue.add(kind, {}, { ...scanJobOptions, jobId: `now-${kind}-${safe}` });
}

/** The live strategy fees read from the chain (grid strategy, ladder strategy, limit-order hook). */
export function chainFees(client: PublicClient | undefined, deployments: Deployments): () => Promise<LiveFees> {
  let last: LiveFees | undefined;
  return async () => {
    if (!client) throw new Error("no chain RPC is configured: the live strategy fees cannot be read");
    try {
      const s = await readServiceChainState(client, deployments.contracts);
      // The fees are immutable; a contract missing here keeps the other products' figures.
      last = {
        gridFeeBps: s.gridStrategy?.feeBps ?? 0,
        ladderFeeBps: s.ladderStrategy?.feeBps ?? s.gridStrategy?.feeBps ?? 0,
        hookFeeBps: s.limitOrderHook?.feeBps ?? 0,
      };
      return last;
    } catch (error) {
      if (last) return last;
      throw error;
    }
  };
}
