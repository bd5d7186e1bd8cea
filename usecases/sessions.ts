// Report-card sign-in: a one-time challenge for personal_sign (5 minutes), exchanged for a session
// token (1 hour). Only the token's SHA-256 is stored. Every clock decision reads the `now` given.
// The challenge's message is an EIP-4361 (Sign-In with Ethereum) message made by viem/siwe, so that
// wallets recognise it and check its domain against the site asking; its nonce is the challenge id.
import { findChallenge, findSession, insertChallenge, insertSession, spendChallenge } from "../adapters/db/sessions.js";
import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import {
  BaseError,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  getAddress,
  hashMessage,
  hexToBool,
  HttpRequestError,
  isAddressEqual,
  recoverAddress,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import type { Database } from "../adapters/db/api-schema.js";
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { CHAIN_ID } from "../domain/chain.js";
import { ApiError } from "../domain/errors.js";

/** Sign-in challenge validity (spec Limits). */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Session token validity (spec Limits). */
export const SESSION_TTL_MS = 60 * 60 * 1000;

export type Challenge = { challengeId: string; message: string; expiresAt: string };
export type Session = { token: string; owner: Address; expiresAt: string };

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** What the message says it grants (the EIP-4361 statement: one line). */
export const SIGN_IN_STATEMENT = "Sign in to read your own report card for one hour. This costs nothing, moves no funds and approves no transaction.";

/**
 * The message the wallet signs: EIP-4361, for `origin` (its host is the domain wallets check, the
 * origin the URI), the owner, this chain, the challenge id as nonce, issued now and expiring with the challenge.
 */
export function challengeMessage(p: { owner: Address; challengeId: string; issuedAt: Date; expiresAt: Date; origin: string }): string {
  const origin = new URL(p.origin);
  return createSiweMessage({
    domain: origin.host,
    address: p.owner,
    statement: SIGN_IN_STATEMENT,
    uri: origin.origin,
    version: "1",
    chainId: CHAIN_ID,
    nonce: p.challengeId,
    issuedAt: p.issuedAt,
    expirationTime: p.expiresAt,
  });
}

/**
 * `origin`: the service's public origin (BASE_URL), or the request's when it is not set; the
 * message's domain and URI.
 */
export async function createChallenge(db: Kysely<Database>, p: { owner: string; now: Date; origin: string }): Promise<Challenge> {
  const owner = getAddress(p.owner);
  // The SIWE nonce: at least 8 alphanumeric characters (hex here, 128 bits).
  const id = randomBytes(16).toString("hex");
  const expiresAt = new Date(p.now.getTime() + CHALLENGE_TTL_MS);
  const message = challengeMessage({ owner, challengeId: id, issuedAt: p.now, expiresAt, origin: p.origin });
  await insertChallenge(db, { id, owner, message, createdAt: p.now, expiresAt });
  return { challengeId: id, message, expiresAt: expiresAt.toISOString() };
}

/** The stored message is an EIP-4361 message for this owner, this chain and this challenge, within its time (viem's validateSiweMessage). */
function siweValid(message: string, owner: Address, challengeId: string, now: Date): boolean {
  const parsed = parseSiweMessage(message);
  return parsed.chainId === CHAIN_ID && validateSiweMessage({ message: parsed, address: owner, nonce: challengeId, time: now });
}

export type ExchangeParameters = { owner: string; challengeId: string; signature: string; now: Date; client?: PublicClient };

/**
 * 401 CHALLENGE_EXPIRED: unknown challenge, or older than 5 minutes. 401 BAD_SIGNATURE: the challenge was
 * used already (a replay), was issued to another owner, or the signature is not the owner's over the
 * message as issued (a wrong signer or an altered message). The signature is verified first, then the
 * challenge is spent atomically: spent by its first definite answer, good or bad, so a signature is never
 * judged twice; but a chain that does not answer (503 UNAVAILABLE) leaves it usable, to retry.
 */
export async function exchangeChallenge(db: Kysely<Database>, p: ExchangeParameters): Promise<Session> {
  const owner = getAddress(p.owner);
  const challenge = await findChallenge(db, p.challengeId);
  if (!challenge || challenge.expires_at.getTime() <= p.now.getTime()) throw new ApiError("CHALLENGE_EXPIRED");
  if (challenge.used_at) throw new ApiError("BAD_SIGNATURE", USED);
  // Another wallet's challenge is a definite no without the chain; otherwise ask it (may throw UNAVAILABLE).
  const good =
    challenge.owner === owner.toLowerCase() &&
    siweValid(challenge.message, owner, challenge.id, p.now) &&
    (await signedBy({ owner, message: challenge.message, signature: p.signature, client: p.client }));
  const spent = await spendChallenge(db, challenge.id, p.now);
  // A concurrent exchange answered first: this one is a replay, whatever its signature.
  if (!spent) throw new ApiError("BAD_SIGNATURE", USED);
  if (challenge.owner !== owner.toLowerCase()) throw new ApiError("BAD_SIGNATURE", "The challenge was issued to another wallet");
  if (!good) throw new ApiError("BAD_SIGNATURE");

  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(p.now.getTime() + SESSION_TTL_MS);
  await insertSession(db, { tokenHash: hashToken(token), owner, createdAt: p.now, expiresAt });
  return { token, owner, expiresAt: expiresAt.toISOString() };
}

const USED = "This challenge was used already: ask for a new one";

/** No answer from the chain (a transport failure, not an RPC error reply): the service's fault, not the signer's. */
function isOutage(error: unknown): boolean {
  const transport = (e: unknown) =>
    e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError || e instanceof SocketClosedError;
  return error instanceof BaseError ? error.walk(transport) !== null : false;
}

/**
 * personal_sign by `owner`. A key's signature is recovered locally (no chain needed); any other
 * (ERC-1271 smart wallets, ERC-6492 wallets not deployed yet) is checked through the chain with the
 * universal validator, deployless. A revert or a false is a definite no; a transport failure throws
 * 503 UNAVAILABLE. (viem's verifyMessage turns a failed call into false, so it cannot tell them apart.)
 */
async function signedBy(p: { owner: Address; message: string; signature: string; client?: PublicClient }): Promise<boolean> {
  if (!/^0x(?:[0-9a-fA-F]{2})+$/.test(p.signature)) return false;
  const signature = p.signature as Hex;
  const hash = hashMessage(p.message);
  try {
    if (isAddressEqual(await recoverAddress({ hash, signature }), p.owner)) return true;
  } catch {
    // Not a 65-byte key signature: a smart wallet's, perhaps.
  }
  if (!p.client) return false;
  try {
    const data = encodeDeployData({ abi: erc6492SignatureValidatorAbi, args: [p.owner, hash, signature], bytecode: erc6492SignatureValidatorByteCode });
    const { data: answer } = await p.client.call({ data });
    return hexToBool(answer ?? "0x0");
  } catch (error) {
    if (isOutage(error))
      throw new ApiError("UNAVAILABLE", "The chain did not answer while checking the signature: the challenge is still usable, retry shortly");
    return false;
  }
}

/** The owner of a live session token, or null (unknown, malformed or expired). */
export async function sessionOwner(db: Kysely<Database>, token: string, now: Date): Promise<Address | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await findSession(db, hashToken(token));
  if (!row || row.expires_at.getTime() <= now.getTime()) return null;
  return getAddress(row.owner);
}
