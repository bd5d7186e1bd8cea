// GET /v1/agent/report-card/{owner} and its /private view, declared (served by api/routes/report-card.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { Address, AgentTag, errorResponses, okResponse } from "../fields.js";
import { ReportCard } from "../report-card.js";
import { sessionSecurity } from "../session-security.js";

const request = {
  params: z.object({ owner: Address.openapi({ description: "The owner wallet" }) }),
  query: z.object({ agent: AgentTag.optional().openapi({ description: "Only this agent's actions (its agentTag)" }) }),
};

const RULES =
  "Every figure comes from the chain, never from an agent: each prepared bundle is filed with the chain price, matched to mined transactions by owner, target and exact calldata, and graded by fixed rules a day after it took effect (7 days for deposits). No rate before 30 graded actions; then hitRate.lower90 is the low end of the Wilson 90% range, with the raw hits and misses. The rates count every graded action on record (the whole history: graded actions are never deleted), while the card lists the newest 500 actions; a bundle never signed never counts.\n\n" +
  "Credit: anyone may prepare a bundle for any owner, so a mined call is matched only to bundles prepared within the 10 minutes (a bundle's lifetime) before its block, never after it. A bundle prepared with the owner's report-card session (Authorization: Bearer on the prepare) is the owner's own and takes the call, whatever else matches; bundles prepared without one that lost to it are never on the public card. Without the owner's session, when the bundles it matches carry different agentTags, no agent gets the credit: each is not-graded with reason other (the note says why), on the private card only.";

export const getReportCard = createRoute({
  method: "get",
  path: "/report-card/{owner}",
  tags: ["Report card"],
  summary: "An owner's report card",
  description: `${RULES}\n\nExecuted actions only, grouped by agentTag. Public unless the service sets AGENT_REPORT_CARDS_READS=owner; then it needs the owner's session too (401 SESSION_REQUIRED).`,
  request,
  // The session is optional here: needed only in the owner read mode (the MCP tool takes it as sessionToken).
  security: sessionSecurity.optional,
  responses: { 200: okResponse(ReportCard, "The public card"), ...errorResponses("SESSION_REQUIRED", "REPORT_CARDS_DISABLED") },
});

export const getPrivateReportCard = createRoute({
  method: "get",
  path: "/report-card/{owner}/private",
  tags: ["Report card"],
  summary: "An owner's report card, with unsigned bundles",
  description: `${RULES}\n\nThe owner's view: also the prepared bundles that wait to be signed (waiting, reason receipt) or were never signed (not-graded, reason other), with \`signed: false\`. Needs the owner's session: \`Authorization: Bearer <SESSION_TOKEN>\` (401 SESSION_REQUIRED without one, with an expired one, or with another owner's).`,
  request,
  security: sessionSecurity.required,
  responses: { 200: okResponse(ReportCard, "The private card"), ...errorResponses("SESSION_REQUIRED", "REPORT_CARDS_DISABLED") },
});
