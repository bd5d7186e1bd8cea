// The report-card session: `Authorization: Bearer <SESSION_TOKEN>` from the session exchange.
// A route that needs it calls `requireOwnerSession`; a token that is missing, unknown, expired, or
// another owner's is the same 401 SESSION_REQUIRED (nothing tells a caller which).
import type { Context } from "hono";
import type { Address } from "viem";
import { ApiError } from "../../domain/errors.js";
import { sessionOwner } from "../../usecases/sessions.js";
import type { AppDeps } from "../deps.js";
import { sameAddress } from "../../domain/address.js";

/** The bearer token of the request, or null. */
export function bearerToken(c: Context): string | null {
  const header = c.req.header("Authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1]! : null;
}

/** Throws 401 SESSION_REQUIRED unless the request carries a live session of `owner`. */
export async function requireOwnerSession(deps: Pick<AppDeps, "db" | "now">, c: Context, owner: string): Promise<Address> {
  const token = bearerToken(c);
  const sessionFor = token ? await sessionOwner(deps.db, token, deps.now()) : null;
  if (!sessionFor) throw new ApiError("SESSION_REQUIRED", "A live report-card session is required: sign in with POST /v1/agent/report-card/session/challenge");
  if (!sameAddress(sessionFor, owner)) throw new ApiError("SESSION_REQUIRED", "The session is not this owner's: sign in with the owner's wallet");
  return sessionFor;
}

/** The OpenAPI security scheme of the session (registered by the report-card routes). */
export const SESSION_SECURITY_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  description: "The report-card session token from POST /v1/agent/report-card/session (valid one hour).",
};
