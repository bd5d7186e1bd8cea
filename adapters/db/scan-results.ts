// Stored scans (grid-tokens, ladder-tokens, strategy-finder): one row per kind and key, replaced by
// each run, with the chain it was made on.
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";

export async function upsertScanResult(db: Kysely<Database>, kind: string, key: string, payload: unknown, at: Date, chain: string | null): Promise<void> {
  await db
    .insertInto("scan_result")
    .values({ kind, key, payload: payload as never, created_at: at, chain })
    .onConflict((oc) => oc.columns(["kind", "key"]).doUpdateSet({ payload: payload as never, created_at: at, chain }))
    .execute();
}

export const findScanResult = (db: Kysely<Database>, kind: string, key: string) =>
  db.selectFrom("scan_result").select(["payload", "created_at", "chain"]).where("kind", "=", kind).where("key", "=", key).executeTakeFirst();
