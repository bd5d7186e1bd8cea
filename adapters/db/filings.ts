// Report-card filings: a prepared bundle filed for grading, stored with its sign request in one
// transaction, and the count of open (matchable) ones the pipeline's caps bound.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";
import { createSignRequest, type CreateSignRequestParameters } from "./sign-requests.js";

/** Open filings of an owner or a client, counted up to `cap` rows (the partial indexes answer it). */
export async function countOpenFilings(db: Kysely<Database>, column: "owner" | "client", value: string, withoutSession: boolean, cap: number): Promise<number> {
  let q = db.selectFrom("filing").select("id").where("matchable", "=", true).where(column, "=", value);
  if (withoutSession) q = q.where("owner_session", "=", false);
  const rows = await q.limit(cap).execute();
  return rows.length;
}

export type NewFiling = {
  owner: string;
  agentTag: string | null;
  kind: string;
  steps: { to: string; data: string; value: "0" }[];
  chainPrice: bigint | null;
  callKey: string | null;
  ownerSession: boolean;
  client: string | null;
};

/** The sign request and, when given, its filing: both or neither. */
export async function storePrepared(
  db: Kysely<Database>,
  signRequest: CreateSignRequestParameters & { id: string },
  filing: NewFiling | undefined,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await createSignRequest(trx, signRequest);
    if (!filing) return;
    await trx
      .insertInto("filing")
      .values({
        id: randomBytes(16).toString("hex"),
        sign_request_id: signRequest.id,
        owner: filing.owner.toLowerCase(),
        agent_tag: filing.agentTag,
        kind: filing.kind,
        steps: filing.steps,
        chain_price: filing.chainPrice,
        created_at: signRequest.now,
        call_key: filing.callKey,
        owner_session: filing.ownerSession,
        client: filing.client,
      })
      .execute();
  });
}
