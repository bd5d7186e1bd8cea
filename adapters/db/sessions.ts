// Report-card sessions: the sign-in challenges (EIP-4361 messages, each used once) and the sessions
// they are exchanged for (stored by the hash of their token, never the token).
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";

type Db = Kysely<Database>;

export type NewChallenge = { id: string; owner: string; message: string; createdAt: Date; expiresAt: Date };

export async function insertChallenge(db: Db, c: NewChallenge): Promise<void> {
  await db
    .insertInto("session_challenge")
    .values({ id: c.id, owner: c.owner.toLowerCase(), message: c.message, created_at: c.createdAt, expires_at: c.expiresAt })
    .execute();
}

export const findChallenge = (db: Db, id: string) => db.selectFrom("session_challenge").selectAll().where("id", "=", id).executeTakeFirst();

/** Marks the challenge used unless it was already: true when this call spent it. */
export async function spendChallenge(db: Db, id: string, at: Date): Promise<boolean> {
  const spent = await db
    .updateTable("session_challenge")
    .set({ used_at: at })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return spent !== undefined;
}

export async function insertSession(db: Db, s: { tokenHash: string; owner: string; createdAt: Date; expiresAt: Date }): Promise<void> {
  await db.insertInto("session").values({ token_hash: s.tokenHash, owner: s.owner.toLowerCase(), created_at: s.createdAt, expires_at: s.expiresAt }).execute();
}

export const findSession = (db: Db, tokenHash: string) =>
  db.selectFrom("session").select(["owner", "expires_at"]).where("token_hash", "=", tokenHash).executeTakeFirst();
