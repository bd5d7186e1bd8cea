// POST /v1/agent/prepare/{kind}, declared: one operation per row of contract/prepare-kinds.ts (served by
// api/routes/prepare.ts).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { PREPARE_REFUSALS, prepareKindRegistry, type PrepareKind } from "../prepare-kinds.js";
import { PrepareResult } from "../prepare.js";
import { sessionSecurity } from "../session-security.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../sign-request.js";

/** A kind's route: its row of the registry (body, refusals) as an OpenAPI operation. */
export function prepareOperation(kind: PrepareKind) {
  const { body, refusals } = prepareKindRegistry[kind];
  return createRoute({
    method: "post",
    path: `/prepare/${kind}`,
    tags: ["Prepare"],
    summary: `Prepare ${kind}`,
    description: `${body.description ?? ""}\n\nThe whole bundle is simulated before answering (a revert is 422 SIMULATION_FAILED with the decoded reason), stored as a SignRequest for 10 minutes and filed for the owner's report card. One client (its address) holds at most ${LIVE_SIGN_REQUESTS_PER_CLIENT} unexpired SignRequests: past it, 429 RATE_LIMITED with Retry-After (when the oldest expires). Send the owner's report-card session (\`Authorization: Bearer\`, from POST /v1/agent/report-card/session) with the prepare: the filed action is then the owner's own and takes the credit once mined, whatever anyone else prepared; without it, anyone may prepare the same call under another agentTag, and the action is then credited to none. \`reportCard\` in the answer says how it was filed (not filed at all when 1,000 bundles for this owner, or from this client, are still open unsigned). An owner short of funds is no refusal: the answer is 200 with the bundle and \`issues\` (0x Swap API v2's shape, amounts as decimal strings in base units): \`issues.balance\` {token, actual, expected} when the owner holds less than the bundle spends (fund the owner, then send; the bundle was simulated as if funded), with \`holder\` when the funds are another address's (ladder-strategy via account: the agent account pays, so fund the account), \`issues.allowance\` {spender, actual} when the allowance is below what the bundle approves (informational: the bundle's approve sets it), \`issues.simulationIncomplete\` true when the shortfall kept the bundle from being simulated in full.`,
    request: { body: { content: { "application/json": { schema: body } }, required: true } },
    // Optional: the owner's report-card session makes the filed action the owner's own (see reportCard).
    security: sessionSecurity.optional,
    responses: {
      200: okResponse(PrepareResult, "The unsigned bundle, its sign link and walletSendCalls"),
      ...errorResponses(...PREPARE_REFUSALS, ...refusals),
    },
  });
}
