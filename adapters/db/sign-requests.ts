// Stored prepare answers (SignRequests): written when a bundle is prepared, read by the sign page
// and GET /v1/agent/sign-requests/{id} until they expire (10 minutes).
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, SignRequestRow } from "./api-schema.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../../contract/sign-request.js";

/** Prepared bundle lifetime (spec Limits). */
export const SIGN_REQUEST_TTL_MS = 10 * 60 * 1000;

/** 192 random bits, base64url (32 characters): the sign link's only secret. */
export function newSignRequestId(): string {
  return randomBytes(24).toString("base64url");
}

/** Plausible ids only reach the database (no lookup for junk). */
export const SIGN_REQUEST_ID = /^[A-Za-z0-9_-]{22,64}$/;

export type CreateSignRequestParameters = {
  owner: string;
  kind: string;
  bundle: Record<string, unknown>;
  now: Date;
  ttlMs?: number;
  id?: string;
  /** The client that prepared it (the rate-limit key), when known. */
  client?: string | null;
};

export async function createSignRequest(db: Kysely<Database>, p: CreateSignRequestParameters): Promise<SignRequestRow> {
  return db
    .insertInto("sign_request")
    .values({
      id: p.id ?? newSignRequestId(),
      owner: p.owner.toLowerCase(),
      kind: p.kind,
      bundle: p.bundle,
      created_at: p.now,
      expires_at: new Date(p.now.getTime() + (p.ttlMs ?? SIGN_REQUEST_TTL_MS)),
      client: p.client ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The sign request with this id when it exists and has not expired at `now`. */
export async function findLiveSignRequest(db: Kysely<Database>, id: string, now: Date): Promise<SignRequestRow | undefined> {
  if (!SIGN_REQUEST_ID.test(id)) return undefined;
  return db.selectFrom("sign_request").selectAll().where("id", "=", id).where("expires_at", ">", now).executeTakeFirst();
}

/** The stored sign request `id`, expired or not (the sign page says which). */
export async function findSignRequest(db: Kysely<Database>, id: string): Promise<SignRequestRow | undefined> {
  return db.selectFrom("sign_request").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * The client's live sign requests at `now`, counted up to `cap` (an index range of at most `cap` rows), and
 * when the oldest of them expires (the earliest a new one fits).
 */
export async function liveSignRequestsOf(
  db: Kysely<Database>,
  client: string,
  now: Date,
  cap = LIVE_SIGN_REQUESTS_PER_CLIENT,
): Promise<{ count: number; firstExpiry: Date | null }> {
  const row = await db
    .selectFrom((eb) =>
      eb.selectFrom("sign_request").select("expires_at").where("client", "=", client).where("expires_at", ">", now).orderBy("expires_at").limit(cap).as("live"),
    )
    .select((eb) => [eb.fn.countAll<string>().as("n"), eb.fn.min("expires_at").as("first")])
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), firstExpiry: row.first ? new Date(row.first as Date) : null };
}
