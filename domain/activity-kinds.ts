// The kinds of change the indexer writes to the activity log, named once: src/ writes them, the contract lists
// them. The strings are stored in the projections, so they never change (a new kind is added, not renamed).

export const ACTIVITY_KINDS = [
  "vault.shares",
  "vault.deposit.requested",
  "vault.deposit.settled",
  "vault.deposit.refunded",
  "vault.deposit.cancelled",
  "vault.withdrawal.requested",
  "vault.withdrawal.completed",
  "vault.withdrawal.cancelled",
  "order.placed",
  "order.filled",
  "order.claimable",
  "order.claimed",
  "order.closed",
  "grid.opened",
  "grid.traded",
  "grid.repeat",
  "grid.collected",
  "grid.closed",
  "ladder.opened",
  "ladder.traded",
  "ladder.part.finished",
  "ladder.repeat",
  "ladder.collected",
  "ladder.closed",
  "basket.balance",
  "swap.executed",
] as const;

export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The kinds in short, each run of one family joined: "vault.deposit.requested|settled|…, order.placed|…". */
export function activityKindsInShort(): string {
  const runs: { family: string; names: string[] }[] = [];
  for (const kind of ACTIVITY_KINDS) {
    const dot = kind.lastIndexOf(".");
    const family = kind.slice(0, dot);
    const last = runs.at(-1);
    if (last?.family === family) last.names.push(kind.slice(dot + 1));
    else runs.push({ family, names: [kind.slice(dot + 1)] });
  }
  return runs.map((r) => `${r.family}.${r.names.join("|")}`).join(", ");
}
