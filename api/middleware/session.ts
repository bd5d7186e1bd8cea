// The report-card session: `Authorization: Bearer <SESSION_TOKEN>` from the session exchange.
// A route that needs it declares `sessionSecurity.required` (contract/session-security.ts) and calls `requireOwnerSession`; a token that
// is missing, unknown, expired, or another owner's is the same 401 SESSION_REQUIRED (nothing tells a
// caller which).
import type { Context } from "hono";
import type { Address } from "viem";
import { ApiError } from "../../domain/errors.js";
import { sessionOwner } from "../../usecases/sessions.js";
import type { AppDeps } from "../deps.js";
import { sameAddress } from "../../domain/address.js";

/** What a handler's session read names: its route's declaration. */
type Declared = { method: string; path: string; security?: Record<string, string[]>[] };

/**
 * The bearer token of the request, or null. Only for a route whose declaration takes the session: a
 * handler reading one that its declaration hides (so its MCP tool has no `sessionToken`) throws.
 */
export function bearerToken(route: Declared, c: Context): string | null {
  if (!route.security?.some((s) => "session" in s)) {
    throw new Error(`${route.method.toUpperCase()} ${route.path} reads a session that its declaration does not declare`);
  }
  const header = c.req.header("Authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1]! : null;
}

/** Throws 401 SESSION_REQUIRED unless the request carries a live session of `owner`. */
export async function requireOwnerSession(deps: Pick<AppDeps, "db" | "now">, route: Declared, c: Context, owner: string): Promise<Address> {
  const token = bearerToken(route, c);
  const sessionFor = token ? await sessionOwner(deps.db, token, deps.now()) : null;
  if (!sessionFor) throw new ApiError("SESSION_REQUIRED", "A live report-card session is required: sign in with POST /v1/agent/report-card/session/challenge");
  if (!sameAddress(sessionFor, owner)) throw new ApiError("SESSION_REQUIRED", "The session is not this owner's: sign in with the owner's wallet");
  return sessionFor;
}
