// The paid runs' line in the run log (strategy_run): who paid (identity "payer"), for what, and the
// transaction that settled it (migration 0007).
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";

export type PaidRunRow = {
  /** The payer's address, lowercase. */
  payer: string;
  /** The run's token, lowercase. */
  token: string;
  strategy: string;
  input: Record<string, unknown>;
  summary: Record<string, unknown>;
  /** The settlement transaction, lowercase. */
  settlementTx: string;
  at: Date;
};

/** Logs one paid run in strategy_run. */
export async function insertPaidRun(db: Kysely<Database>, run: PaidRunRow): Promise<void> {
  await db
    .insertInto("strategy_run")
    .values({
      identity_kind: "payer",
      identity_value: run.payer,
      token: run.token,
      strategy: run.strategy,
      input: run.input,
      summary: run.summary,
      settlement_tx: run.settlementTx,
      created_at: run.at,
    })
    .execute();
}
