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

/** null before 30 graded actions; then the Wilson lower bound with the raw hits and misses. */
export function hitRateOf(actions: readonly Pick<CardAction, "state" | "hit">[]): HitRate | null {
  const graded = actions.filter((a) => a.state === "graded" && a.hit !== null);
  if (graded.length < MIN_GRADED_FOR_RATE) return null;
  const hits = graded.filter((a) => a.hit).length;
  const misses = graded.length - hits;
  return { lower90: wilsonLowerBound({ hits, misses }), hits, misses, howGraded: GRADING_RULES };
}

/** Agents by tag (tagged ones by name, the untagged group last), newest actions first. */
export function groupByAgent(actions: readonly CardAction[]): CardAgent[] {
  const groups = new Map<string | null, CardAction[]>();
  for (const a of actions) groups.set(a.agentTag, [...(groups.get(a.agentTag) ?? []), a]);
  const names = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  return names.map((name) => {
    const list = groups.get(name)!.sort((a, b) => b.preparedAt.localeCompare(a.preparedAt));
    const hitRate = hitRateOf(list);
    return { name, ready: hitRate !== null, graded: list.filter((a) => a.state === "graded").length, hitRate, actions: list };
  });
}
