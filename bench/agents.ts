// Agents that poll their activity feed once a second, as the load benchmarks run them: each on its own
// owner and its own client (X-Forwarded-For, the API trusting one proxy hop), over one keep-alive pool.
// Each takes a baseline, then polls with the cursor it was last given (at once when `more`, or as a long
// poll sent again on each answer when `waitMs` is set), and keeps
// every change it is given, with when its answer arrived.
import type { Agent } from "node:http";
import { httpGet } from "./lib.js";

type Change = { id: string; txHash: string };
type Activity = { cursor: string; after: string; changes: Change[]; more: boolean; reorged: boolean };

export type PollingAgents = {
  /** Polls answered (any status). */
  polls: number;
  /** Poll latencies (ms) while `measuring`. */
  latencies: number[];
  measuring: boolean;
  /** Failed polls (an answer but 200, or none) and reorgs on a still chain. */
  failures: string[];
  /** Owner → the position its baseline answered. */
  baselines: Map<string, string>;
  /** Owner → the changes its agent was given, in order, each with when the poll that carried it was sent and answered (performance.now()). */
  delivered: Map<string, (Change & { asked: number; at: number })[]>;
  /** Resolves once every agent has stopped (after `stop` aborts). */
  done: Promise<void>;
};

/** The client address of agent `index`. */
const clientOf = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

/**
 * Starts one agent per owner, their baselines spread over the first second. `baseOf(index)` is the API
 * agent `index` asks this time (one, or a replica of several).
 */
export function startPollingAgents(
  owners: string[],
  pool: Agent,
  baseOf: (index: number) => string,
  stop: AbortSignal,
  /** > 0: each poll with a cursor is a long poll (`waitMs`), sent again at once on its answer; 0: a poll a second. */
  waitMs = 0,
): PollingAgents {
  const agents: Omit<PollingAgents, "done"> = { polls: 0, latencies: [], measuring: true, failures: [], baselines: new Map(), delivered: new Map() };
  const poll = async (owner: string, index: number, cursor?: string): Promise<Activity | undefined> => {
    const t0 = performance.now();
    try {
      const query = cursor ? `?cursor=${encodeURIComponent(cursor)}${waitMs > 0 ? `&waitMs=${waitMs}` : ""}` : "";
      const { status, text } = await httpGet(pool, `${baseOf(index)}/v1/agent/accounts/${owner}/activity${query}`, { "X-Forwarded-For": clientOf(index) });
      if (agents.measuring) agents.latencies.push(performance.now() - t0);
      agents.polls++;
      if (status !== 200) return void agents.failures.push(`${owner}: ${status} ${text.slice(0, 200)}`);
      return (JSON.parse(text) as { data: Activity }).data;
    } catch (error) {
      agents.failures.push(`${owner}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const run = async (owner: string, index: number) => {
    await new Promise((r) => setTimeout(r, (index * 1000) / owners.length));
    const first = await poll(owner, index);
    if (!first) return;
    agents.baselines.set(owner, first.after);
    // A baseline gives no change; anything here is a fault too.
    const got = first.changes.map((c) => ({ id: c.id, txHash: c.txHash, asked: 0, at: performance.now() }));
    agents.delivered.set(owner, got);
    let cursor = first.cursor;
    while (!stop.aborted) {
      const t0 = Date.now();
      const asked = performance.now();
      const answer = await poll(owner, index, cursor);
      if (!answer) return;
      if (answer.reorged) agents.failures.push(`${owner}: reorged on a still chain`);
      const at = performance.now();
      for (const c of answer.changes) got.push({ id: c.id, txHash: c.txHash, asked, at });
      cursor = answer.cursor;
      const rest = answer.more || waitMs > 0 ? 0 : 1000 - (Date.now() - t0);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  };
  const done = Promise.all(owners.map((o, i) => run(o, i))).then(() => undefined);
  return Object.assign(agents, { done });
}

/** Waits until every agent holds a baseline, one fails, or a minute passes. */
export async function baselinesTaken(agents: PollingAgents, count: number): Promise<void> {
  const t0 = Date.now();
  while (agents.baselines.size < count && agents.failures.length === 0 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
}
