// The long poll of the activity feed (GET .../activity?waitMs=): read, and while there is nothing to
// answer, wait for the waker to report the owner's changes and read again, until the deadline.
import type { ActivityWaker } from "./waker.js";

/**
 * A poll that waits up to `waitMs` for the owner's changes: subscribe first (so a change indexed
 * during the first read still wakes it), read, and while there is nothing to answer, wait for a wake
 * and read again; at the deadline read once more (the answer then also reports a reorg the waker
 * could not attribute to this owner).
 */
export async function longPoll<T extends { news: boolean }>(
  waker: ActivityWaker,
  owner: string,
  waitMs: number,
  signal: AbortSignal | undefined,
  poll: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  const subscription = waker.subscribe(owner);
  try {
    await subscription.ready;
    let answer = await poll();
    while (!answer.news && !signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const woke = await subscription.next(left, signal);
      if (signal?.aborted) break;
      answer = await poll();
      if (!woke) break;
    }
    return answer;
  } finally {
    subscription.close();
  }
}
