// Reading a report card: the owner's filings with what the grading job found, grouped by agent tag.
// The public card lists executed actions only; the private card also lists bundles waiting to be signed
// and bundles never signed (`signed: false`). The card lists the newest 500 actions, but its hit rates
// count every graded action on record (a matched filing is never deleted): the window is the owner's
// whole record. Unsigned filings never count.
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import type { Database } from "../../adapters/db/api-schema.js";
import { readCardRows, readGradedCounts } from "../../adapters/db/report-card.js";
import {
  groupByAgent,
  hitRateOfCounts,
  planAction,
  stateNote,
  type CardAction,
  type CardAgent,
  type FiledStep,
  type GradedCounts,
  type HitRate,
} from "../../domain/grading/index.js";

/** A bundle not seen mined this long after it was prepared is shown as never signed (its sign link lasts 10 minutes). */
const NEVER_SIGNED_AFTER_MS = 15 * 60_000;
/** At most this many actions per card (newest first). */
export const CARD_ACTION_LIMIT = 500;

export type ReportCard = {
  owner: string;
  view: "public" | "private";
  asOf: string;
  hitRate: HitRate | null;
  agents: (CardAgent & { actions: (CardAction & { signed: boolean })[] })[];
};

export async function readReportCard(db: Kysely<Database>, p: { owner: string; view: "public" | "private"; agent?: string; now: Date }): Promise<ReportCard> {
  // Public: executed actions credited to the filing; never a filing that lost, was credited to none or never signed.
  const cardRows = readCardRows(db, { owner: p.owner, agent: p.agent, publicOnly: p.view === "public", limit: CARD_ACTION_LIMIT });
  const [rows, counts] = await Promise.all([cardRows, gradedCounts(db, p.owner, p.agent)]);

  const actions = rows.map((r): CardAction & { signed: boolean } => {
    const plan = planAction(r.kind, r.steps as FiledStep[]);
    const signed = r.tx_hash !== null;
    let state = (r.state ?? "unsigned") as CardAction["state"];
    let reason = r.reason;
    let note = r.note ?? "";
    if (!signed && r.state !== "not-graded") {
      // Never matched: waiting for its receipt while the bundle may still be signed, else never signed.
      // (A filing that lost the call to the owner's own keeps its stored reason and note.)
      const expired = p.now.getTime() - r.created_at.getTime() > NEVER_SIGNED_AFTER_MS;
      state = expired ? "not-graded" : "waiting";
      reason = expired ? "other" : "receipt";
      note = stateNote(plan, { state: "unsigned", expired });
    }
    // The matched transactions and calls are bookkeeping, not figures the rule compared.
    const { txHashes: _t, calls: _c, ...figures } = (r.figures ?? {}) as Record<string, unknown>;
    return {
      id: r.id,
      agentTag: r.agent_tag,
      kind: r.kind,
      action: plan.action,
      state,
      reason,
      hit: state === "graded" ? r.hit : null,
      note,
      signed,
      preparedAt: r.created_at.toISOString(),
      executedAt: r.executed_at?.toISOString() ?? null,
      gradedAt: r.graded_at?.toISOString() ?? null,
      txHash: r.tx_hash,
      figures,
    };
  });
  return {
    owner: getAddress(p.owner),
    view: p.view,
    asOf: p.now.toISOString(),
    hitRate: hitRateOfCounts([...counts.values()].reduce((sum, c) => ({ hits: sum.hits + c.hits, misses: sum.misses + c.misses }), { hits: 0, misses: 0 })),
    agents: groupByAgent(actions, counts) as ReportCard["agents"],
  };
}

/**
 * Hits and misses per agent tag over every graded action of the owner (one agent's with `agent`), however
 * old: graded with a verdict and matched to a mined transaction (an unsigned filing never counts).
 */
async function gradedCounts(db: Kysely<Database>, owner: string, agent: string | undefined): Promise<Map<string | null, GradedCounts>> {
  const rows = await readGradedCounts(db, owner, agent);
  return new Map(rows.map((r) => [r.agent_tag, { hits: Number(r.hits), misses: Number(r.misses) }]));
}
