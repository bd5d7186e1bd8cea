// Reading a report card: the owner's filings with what the grading job found, grouped by agent tag.
// The public card lists executed actions only; the private card also lists bundles waiting to be signed
// and bundles never signed (`signed: false`).
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import type { Database } from "../db/api-schema.js";
import { groupByAgent, hitRateOf, planAction, stateNote, type CardAction, type CardAgent, type FiledStep, type HitRate } from "../domain/grading/index.js";

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
  let q = db
    .selectFrom("filing")
    .leftJoin("report_action", "report_action.filing_id", "filing.id")
    .select([
      "filing.id",
      "filing.agent_tag",
      "filing.kind",
      "filing.steps",
      "filing.created_at",
      "report_action.state",
      "report_action.reason",
      "report_action.hit",
      "report_action.note",
      "report_action.executed_at",
      "report_action.graded_at",
      "report_action.tx_hash",
      "report_action.figures",
    ])
    .where("filing.owner", "=", p.owner.toLowerCase())
    .orderBy("filing.created_at", "desc")
    .limit(CARD_ACTION_LIMIT);
  if (p.agent) q = q.where("filing.agent_tag", "=", p.agent);
  if (p.view === "public") q = q.where("report_action.tx_hash", "is not", null);
  const rows = await q.execute();

  const actions = rows.map((r): CardAction & { signed: boolean } => {
    const plan = planAction(r.kind, r.steps as FiledStep[]);
    const signed = r.tx_hash !== null;
    let state = (r.state ?? "unsigned") as CardAction["state"];
    let reason = r.reason;
    let note = r.note ?? "";
    if (!signed) {
      // Never matched: waiting for its receipt while the bundle may still be signed, else never signed.
      const expired = p.now.getTime() - r.created_at.getTime() > NEVER_SIGNED_AFTER_MS;
      state = expired ? "not-graded" : "waiting";
      reason = expired ? "other" : "receipt";
      note = stateNote(plan, { state: "unsigned", expired });
    }
    const { txHashes: _t, ...figures } = (r.figures ?? {}) as Record<string, unknown>;
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
    hitRate: hitRateOf(actions),
    agents: groupByAgent(actions) as ReportCard["agents"],
  };
}
