// Report-card sign-in: a one-time challenge for personal_sign (5 minutes), exchanged for a session
// token (1 hour). Only the token's SHA-256 is stored. Every clock decision reads the `now` given.
import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { getAddress, verifyMessage, type Address, type Hex, type PublicClient } from "viem";
import type { Database } from "../db/api-schema.js";
import { ApiError } from "../domain/errors.js";

/** Sign-in challenge validity (spec Limits). */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Session token validity (spec Limits). */
export const SESSION_TTL_MS = 60 * 60 * 1000;

export type Challenge = { challengeId: string; message: string; expiresAt: string };
export type Session = { token: string; owner: Address; expiresAt: string };

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The message the wallet signs: says what it grants (read access to one report card) and nothing more. */
export function challengeMessage(p: { owner: Address; challengeId: string; issuedAt: Date; expiresAt: Date; baseUrl?: string }): string {
  return [
    `${p.baseUrl ? new URL(p.baseUrl).host : "The agent interface"} asks you to sign in to read your report card.`,
    "",
    "This grants read access to your own report card for one hour. It costs nothing, moves no funds and approves no transaction.",
    "",
    `Wallet: ${p.owner}`,
    "Chain ID: 4663",
    `Challenge: ${p.challengeId}`,
    `Issued at: ${p.issuedAt.toISOString()}`,
    `Expires at: ${p.expiresAt.toISOString()}`,
  ].join("\n");
}

export async function createChallenge(db: Kysely<Database>, p: { owner: string; now: Date; baseUrl?: string }): Promise<Challenge> {
  const owner = getAddress(p.owner);
  const id = randomBytes(16).toString("base64url");
  const expiresAt = new Date(p.now.getTime() + CHALLENGE_TTL_MS);
  const message = challengeMessage({ owner, challengeId: id, issuedAt: p.now, expiresAt, baseUrl: p.baseUrl });
  await db.insertInto("session_challenge").values({ id, owner: owner.toLowerCase(), message, created_at: p.now, expires_at: expiresAt }).execute();
  return { challengeId: id, message, expiresAt: expiresAt.toISOString() };
}

export type ExchangeParameters = { owner: string; challengeId: string; signature: string; now: Date; client?: PublicClient };

/**
 * 401 CHALLENGE_EXPIRED: unknown challenge, or older than 5 minutes. 401 BAD_SIGNATURE: the challenge was
 * used already (a replay), was issued to another owner, or the signature is not the owner's over the
 * message as issued (a wrong signer or an altered message). A challenge is spent by its first exchange,
 * good or bad, so a signature can never be tried twice.
 */
export async function exchangeChallenge(db: Kysely<Database>, p: ExchangeParameters): Promise<Session> {
  const owner = getAddress(p.owner);
  const challenge = await db.selectFrom("session_challenge").selectAll().where("id", "=", p.challengeId).executeTakeFirst();
  if (!challenge || challenge.expires_at.getTime() <= p.now.getTime()) throw new ApiError("CHALLENGE_EXPIRED");
  const spent = await db
    .updateTable("session_challenge")
    .set({ used_at: p.now })
    .where("id", "=", challenge.id)
    .where("used_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  if (!spent) throw new ApiError("BAD_SIGNATURE", "This challenge was used already: ask for a new one");
  if (challenge.owner !== owner.toLowerCase()) throw new ApiError("BAD_SIGNATURE", "The challenge was issued to another wallet");
  if (!(await signedBy({ owner, message: challenge.message, signature: p.signature, client: p.client })))
    throw new ApiError("BAD_SIGNATURE");

  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(p.now.getTime() + SESSION_TTL_MS);
  await db.insertInto("session").values({ token_hash: hashToken(token), owner: owner.toLowerCase(), created_at: p.now, expires_at: expiresAt }).execute();
  return { token, owner, expiresAt: expiresAt.toISOString() };
}

/** personal_sign by `owner`: through the chain when there is one (ERC-1271 smart wallets too), else ecrecover. */
async function signedBy(p: { owner: Address; message: string; signature: string; client?: PublicClient }): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]+$/.test(p.signature)) return false;
  const signature = p.signature as Hex;
  try {
    return p.client
      ? await p.client.verifyMessage({ address: p.owner, message: p.message, signature })
      : await verifyMessage({ address: p.owner, message: p.message, signature });
  } catch (error) {
    // A malformed signature fails to parse; a dead chain is the service's fault, not the signer's.
    if ((error as Error).name === "HttpRequestError" || (error as Error).name === "TimeoutError") throw error;
    return false;
  }
}

/** The owner of a live session token, or null (unknown, malformed or expired). */
export async function sessionOwner(db: Kysely<Database>, token: string, now: Date): Promise<Address | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await db.selectFrom("session").select(["owner", "expires_at"]).where("token_hash", "=", hashToken(token)).executeTakeFirst();
  if (!row || row.expires_at.getTime() <= now.getTime()) return null;
  return getAddress(row.owner);
}
