// A report card from its actions: grouped by agent tag, with a hit rate once 30 actions are graded. Pure.
import { GRADING_RULES } from "./rules.js";
import { MIN_GRADED_FOR_RATE } from "./states.js";
import { wilsonLowerBound } from "./wilson.js";

export type CardAction = {
  id: string;
  agentTag: string | null;
  kind: string;
  action: string;
  /** graded, waiting, not-graded; unsigned only on the private card. */
  state: "graded" | "waiting" | "not-graded" | "unsigned";
  reason: string | null;
  hit: boolean | null;
  note: string;
  preparedAt: string;
  executedAt: string | null;
  gradedAt: string | null;
  txHash: string | null;
  figures: Record<string, unknown>;
};

export type HitRate = { lower90: number; hits: number; misses: number; howGraded: string };

export type CardAgent = {
  /** The agent's tag; null groups the untagged actions. */
  name: string | null;
  ready: boolean;
  graded: number;
  hitRate: HitRate | null;
  actions: CardAction[];
};

/** Graded actions counted: hits and misses. */
export type GradedCounts = { hits: number; misses: number };

/** null before 30 graded actions; then the Wilson lower bound with the raw hits and misses. */
export function hitRateOfCounts({ hits, misses }: GradedCounts): HitRate | null {
  if (hits + misses < MIN_GRADED_FOR_RATE) return null;
  return { lower90: wilsonLowerBound({ hits, misses }), hits, misses, howGraded: GRADING_RULES };
}

/** The graded actions among `actions` counted. */
export function gradedCountsOf(actions: readonly Pick<CardAction, "state" | "hit">[]): GradedCounts {
  const graded = actions.filter((a) => a.state === "graded" && a.hit !== null);
  const hits = graded.filter((a) => a.hit).length;
  return { hits, misses: graded.length - hits };
}

/** null before 30 graded actions; then the Wilson lower bound with the raw hits and misses. */
export function hitRateOf(actions: readonly Pick<CardAction, "state" | "hit">[]): HitRate | null {
  return hitRateOfCounts(gradedCountsOf(actions));
}

/**
 * Agents by tag (tagged ones by name, the untagged group last), newest actions first. With `counts` (per
 * tag, over the whole record), each agent's rate and graded number are those counts, and an agent whose
 * graded actions are all older than the listed ones still appears (with no actions listed); without,
 * they come from the listed actions.
 */
export function groupByAgent(actions: readonly CardAction[], counts?: ReadonlyMap<string | null, GradedCounts>): CardAgent[] {
  const groups = new Map<string | null, CardAction[]>();
  for (const a of actions) groups.set(a.agentTag, [...(groups.get(a.agentTag) ?? []), a]);
  for (const name of counts?.keys() ?? []) if (!groups.has(name)) groups.set(name, []);
  const names = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  return names.map((name) => {
    const list = groups.get(name)!.sort((a, b) => b.preparedAt.localeCompare(a.preparedAt));
    const counted = counts ? (counts.get(name) ?? { hits: 0, misses: 0 }) : gradedCountsOf(list);
    const hitRate = hitRateOfCounts(counted);
    return { name, ready: hitRate !== null, graded: counted.hits + counted.misses, hitRate, actions: list };
  });
}
