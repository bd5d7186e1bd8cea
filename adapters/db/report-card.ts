// The report card's reads: an owner's filings with what the grading found (newest first), and the hits
// and misses per agent tag over every graded action on record.
import { sql, type Kysely } from "kysely";
import type { Database } from "./api-schema.js";

export type CardRowsQuery = { owner: string; agent?: string; publicOnly: boolean; limit: number };

/**
 * The owner's newest filings (one agent's with `agent`) joined with their report actions. `publicOnly`:
 * executed actions credited to the filing only; never a filing that lost, was credited to none or never signed.
 */
export async function readCardRows(db: Kysely<Database>, p: CardRowsQuery) {
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
    .limit(p.limit);
  if (p.agent) q = q.where("filing.agent_tag", "=", p.agent);
  if (p.publicOnly) q = q.where("report_action.tx_hash", "is not", null).where("report_action.on_public_card", "=", true);
  return q.execute();
}

/** Hits and misses (as counted text) per agent tag of the owner's graded actions matched to a mined transaction. */
export async function readGradedCounts(db: Kysely<Database>, owner: string, agent: string | undefined) {
  let q = db
    .selectFrom("report_action")
    .innerJoin("filing", "filing.id", "report_action.filing_id")
    .select([
      "filing.agent_tag",
      sql<string>`count(*) filter (where ${sql.ref("report_action.hit")})`.as("hits"),
      sql<string>`count(*) filter (where not ${sql.ref("report_action.hit")})`.as("misses"),
    ])
    .where("report_action.owner", "=", owner.toLowerCase())
    .where("report_action.state", "=", "graded")
    .where("report_action.hit", "is not", null)
    .where("report_action.tx_hash", "is not", null)
    .groupBy("filing.agent_tag");
  if (agent) q = q.where("filing.agent_tag", "=", agent);
  return q.execute();
}
