// Grading bounded by what can still match (issue 30). A filing is `matchable` until it is matched or its
// 10-minute window has closed on the indexed chain; the grading pass reads only matchable filings, found
// from each new mined call through (owner, call_key): call_key is the keccak256 of the first acting step's
// target and calldata (domain/grading callKey). `owner_session`: prepared with the owner's report-card
// session (its own; it wins the credit). `client`: who prepared it (the rate limit's key), for the caps
// on open filings. `report_action.on_public_card` false: a matched action credited to none (filed under
// several agentTags without a session), kept out of the public card.
import { sql, type Kysely, type Migration } from "kysely";
import { callKey } from "../../../domain/grading/rules.js";

export function gradingWindow(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s
        .alterTable("filing")
        .addColumn("matchable", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("call_key", "text")
        .addColumn("owner_session", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("client", "text")
        .execute();
      // Filings of the last hour never matched may still match (an indexer behind): matchable, keyed below.
      // Older ones cannot (their 10-minute window closed long ago): left as they are, read by no pass.
      await db
        .withSchema(schema)
        .updateTable("filing")
        .set({ matchable: true })
        .where("created_at", ">", sql<Date>`now() - interval '1 hour'`)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom("report_action").select("filing_id").whereRef("report_action.filing_id", "=", "filing.id").where("tx_hash", "is not", null))),
        )
        .execute();
      const open = await db.withSchema(schema).selectFrom("filing").select(["id", "steps"]).where(sql.ref("matchable"), "=", true).execute();
      for (const f of open) {
        await db
          .withSchema(schema)
          .updateTable("filing")
          // A jsonb read through the migrator may come back as its text.
          .set({ call_key: callKey(typeof f.steps === "string" ? JSON.parse(f.steps) : f.steps) })
          .where("id", "=", f.id)
          .execute();
      }
      await s
        .alterTable("filing")
        .alterColumn("matchable", (c) => c.setDefault(true))
        .execute();
      await s
        .createIndex("filing_matchable_key_idx")
        .on("filing")
        .columns(["owner", "call_key", "created_at"])
        .where(sql.ref("matchable"), "=", true)
        .execute();
      await s.createIndex("filing_matchable_created_idx").on("filing").column("created_at").where(sql.ref("matchable"), "=", true).execute();
      await s.createIndex("filing_matchable_client_idx").on("filing").column("client").where(sql.ref("matchable"), "=", true).execute();

      await s
        .alterTable("report_action")
        .addColumn("on_public_card", "boolean", (c) => c.notNull().defaultTo(true))
        .execute();
      // "ambiguous" is no reason of the spec's: ambiguity is `other` (with its note), off the public card.
      await db.withSchema(schema).updateTable("report_action").set({ reason: "other", on_public_card: false }).where("reason", "=", "ambiguous").execute();
      // Matched actions not final yet: the pass revisits only these.
      await s
        .createIndex("report_action_pending_idx")
        .on("report_action")
        .column("owner")
        .where(sql.ref("tx_hash"), "is not", null)
        .where(sql.ref("state"), "not in", ["graded", "not-graded"])
        .execute();
      // Transactions already credited to an action, looked up by owner and time.
      await s.createIndex("report_action_owner_executed_idx").on("report_action").columns(["owner", "executed_at"]).execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("report_action_owner_executed_idx").ifExists().execute();
      await s.dropIndex("report_action_pending_idx").ifExists().execute();
      await s.alterTable("report_action").dropColumn("on_public_card").execute();
      await s.dropIndex("filing_matchable_client_idx").ifExists().execute();
      await s.dropIndex("filing_matchable_created_idx").ifExists().execute();
      await s.dropIndex("filing_matchable_key_idx").ifExists().execute();
      for (const c of ["client", "owner_session", "call_key", "matchable"]) await s.alterTable("filing").dropColumn(c).execute();
    },
  };
}
