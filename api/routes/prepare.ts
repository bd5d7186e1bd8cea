// POST /v1/agent/prepare/{kind}, one route per row of contract/prepare-kinds.ts: the body is validated here, the pipeline (usecases/prepare/pipeline.ts) runs
// in a worker of the `prepare` queue when the app has a job client (its aggregator calls then spend the
// route budget of the `aggregator` queue), else in this process (the aggregator called directly). The answer is the PrepareResult, already stored as the SignRequest and
// filed for the report card.
import { createRoute } from "@hono/zod-openapi";
import { ApiError } from "../../domain/errors.js";
import { prepareThroughJob } from "../../usecases/prepare/job.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../../adapters/db/sign-requests.js";
import { callerOf } from "../caller.js";
import { checkReceivers, prepareContext, runPrepare } from "../../usecases/prepare/pipeline.js";
import type { PrepareBodies } from "../../usecases/prepare/types.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, knownFields, okResponse } from "../../contract/fields.js";
import { PrepareResult } from "../../contract/prepare.js";
import { PREPARE_REFUSALS, prepareKindRegistry, prepareKinds, type PrepareKind } from "../../contract/prepare-kinds.js";
import { createRouter } from "../router.js";
import { sameAddress } from "../../domain/address.js";
import { bearerToken, sessionSecurity } from "../middleware/session.js";
import { sessionOwner } from "../../usecases/sessions.js";

/** A kind's route: its row of the registry (body, refusals) as an OpenAPI operation. */
function prepareRoute(kind: PrepareKind) {
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

export const prepareRoutes = (deps: AppDeps) => {
  const router = createRouter<AppEnv>();
  // The in-process path's context (an app without a job client), made once: its simulator learns the chain once.
  const setup =
    deps.client &&
    prepareContext({
      db: deps.db,
      reads: deps.reads,
      deployments: deps.deployments,
      client: deps.client,
      now: deps.now,
      logger: deps.logger,
      baseUrl: deps.baseUrl ?? "",
      signRequestsPerClient: deps.signRequestsPerClient,
    });
  for (const kind of prepareKinds) {
    const route = prepareRoute(kind);
    router.openapi(route as ReturnType<typeof prepareRoute>, async (c) => {
      const valid = (c.req as unknown as { valid(target: "json"): PrepareBodies[typeof kind] }).valid("json");
      // Extra fields are allowed (the spec's rule) but only checked, never carried: a receiver or
      // recipient among them is refused here, then the job or pipeline gets the declared fields only.
      checkReceivers(valid, valid.owner);
      const body = knownFields(prepareKindRegistry[kind].body, valid);
      // The owner's report-card session makes the filing the owner's own (it takes the credit). Any other
      // token (none, expired, another owner's) is no refusal: the filing is one without a session, and the
      // answer's reportCard says so.
      const token = bearerToken(route, c);
      const sessionFor = token ? await sessionOwner(deps.db, token, deps.now()) : null;
      const caller = callerOf(c, deps);
      const filer = { ownerSession: sessionFor !== null && sameAddress(sessionFor, body.owner), client: caller.client };
      if (deps.jobs) return ok(c, await prepareThroughJob(deps.jobs, kind, body, filer, caller));
      if (!setup) throw new ApiError("UNAVAILABLE", "The chain RPC is not configured");
      return ok(c, await runPrepare({ ...setup, baseUrl: deps.baseUrl ?? new URL(c.req.url).origin }, kind, body, filer));
    });
  }
  return router;
};
