// POST /v1/agent/report-card/session/challenge and POST /v1/agent/report-card/session, declared (served by
// api/routes/session.ts).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { ChallengeRequest, Session, SessionChallenge, SessionRequest, SIGN_IN_LIMIT } from "../session.js";

export const postSessionChallenge = createRoute({
  method: "post",
  path: "/report-card/session/challenge",
  tags: ["Report card"],
  summary: "Sign-in challenge",
  description: `A message for the owner wallet to sign with personal_sign: an EIP-4361 (Sign-In with Ethereum) message whose domain is this service's host, whose nonce is the challengeId, with the owner's address and the chain id, so wallets show it as a sign-in and check the domain. It is valid 5 minutes and works once. Then POST owner, challengeId and the signature to /v1/agent/report-card/session. At most ${SIGN_IN_LIMIT.points} challenges per client (IP) per ${SIGN_IN_LIMIT.duration / 60} minutes (429 RATE_LIMITED). 404 REPORT_CARDS_DISABLED while report cards are off.`,
  request: { body: { required: true, content: { "application/json": { schema: ChallengeRequest } } } },
  responses: { 200: okResponse(SessionChallenge, "The challenge"), ...errorResponses("REPORT_CARDS_DISABLED", "RATE_LIMITED") },
});

export const postSession = createRoute({
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
