// POST /v1/agent/report-card/session/challenge and POST /v1/agent/report-card/session: sign in with the
// owner wallet (personal_sign) for a one-hour session token that reads the private report card.
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../../domain/errors.js";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { clientIp, clientKey, DEFAULT_RATE_LIMIT, rateLimit } from "../middleware/rate-limit.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { ChallengeRequest, Session, SessionChallenge, SessionRequest } from "../../contract/session.js";
import { createRouter } from "../router.js";

/** Challenges, and sessions, each client (IP) may create per window: stored rows, so limited by who asks, not by owner. */
export const SIGN_IN_LIMIT = { points: 20, duration: 600 };

const postChallenge = createRoute({
  method: "post",
  path: "/report-card/session/challenge",
  tags: ["Report card"],
  summary: "Sign-in challenge",
  description: `A message for the owner wallet to sign with personal_sign: an EIP-4361 (Sign-In with Ethereum) message whose domain is this service's host, whose nonce is the challengeId, with the owner's address and the chain id, so wallets show it as a sign-in and check the domain. It is valid 5 minutes and works once. Then POST owner, challengeId and the signature to /v1/agent/report-card/session. At most ${SIGN_IN_LIMIT.points} challenges per client (IP) per ${SIGN_IN_LIMIT.duration / 60} minutes (429 RATE_LIMITED). 404 REPORT_CARDS_DISABLED while report cards are off.`,
  request: { body: { required: true, content: { "application/json": { schema: ChallengeRequest } } } },
  responses: { 200: okResponse(SessionChallenge, "The challenge"), ...errorResponses("REPORT_CARDS_DISABLED", "RATE_LIMITED") },
});

const postSession = createRoute({
  method: "post",
  path: "/report-card/session",
  tags: ["Report card"],
  summary: "Exchange a signed challenge for a session",
  description: [
    "The signature is checked against the message as issued, through the chain (so smart-contract wallets sign in with ERC-1271 too).",
    "The answer's token is valid one hour: send it as `Authorization: Bearer <token>` to GET /v1/agent/report-card/{owner}/private.",
    "401 CHALLENGE_EXPIRED: the challenge is older than 5 minutes or unknown. 401 BAD_SIGNATURE: a wrong signer, an altered message, or a challenge used already (each challenge is spent by its first definite answer, good or bad).",
    "503 UNAVAILABLE: the chain did not answer while a smart-wallet signature was checked; the challenge is not spent, so send the same request again. The signature is at most 4096 bytes (400 INVALID_REQUEST).",
    `At most ${SIGN_IN_LIMIT.points} sessions per client (IP) per ${SIGN_IN_LIMIT.duration / 60} minutes (429 RATE_LIMITED).`,
  ].join("\n\n"),
  request: { body: { required: true, content: { "application/json": { schema: SessionRequest } } } },
  responses: {
    200: okResponse(Session, "The session"),
    ...errorResponses("CHALLENGE_EXPIRED", "BAD_SIGNATURE", "REPORT_CARDS_DISABLED", "RATE_LIMITED", "UNAVAILABLE"),
  },
});

export const sessionRoutes = (deps: Pick<AppDeps, "db" | "now" | "client" | "baseUrl" | "reportCards" | "redis" | "logger" | "rateLimit">) => {
  const enabled = () => {
    if (deps.reportCards && !deps.reportCards.enabled) throw new ApiError("REPORT_CARDS_DISABLED");
  };
  const base = { ...DEFAULT_RATE_LIMIT, ...deps.rateLimit };
  // By the client's address, never the body's owner: anyone may name any owner.
  const key = (c: Context) => clientKey(clientIp(c, base.trustProxyHops));
  // Each under a policy name of its own: the answer lists it beside the app's "client" (one policy per name).
  const limiter = (name: string, policy: string) =>
    rateLimit({
      redis: deps.redis,
      logger: deps.logger,
      ...SIGN_IN_LIMIT,
      keyPrefix: `${base.keyPrefix}:${name}`,
      trustProxyHops: base.trustProxyHops,
      key,
      name: policy,
    });
  const challengeLimit = limiter("session-challenge", "sign-in-challenge");
  const sessionLimit = limiter("session", "sign-in");
  return createRouter<AppEnv>()
    .openapi(postChallenge, async (c) => {
      enabled();
      const { owner } = c.req.valid("json");
      await challengeLimit(c, async () => {});
      // The message's domain: the public origin (BASE_URL), else the one the request came to.
      return ok(c, await createChallenge(deps.db, { owner, now: deps.now(), origin: deps.baseUrl ?? new URL(c.req.url).origin }));
    })
    .openapi(postSession, async (c) => {
      enabled();
      const body = c.req.valid("json");
      await sessionLimit(c, async () => {});
      return ok(c, await exchangeChallenge(deps.db, { ...body, now: deps.now(), client: deps.client }));
    });
};
