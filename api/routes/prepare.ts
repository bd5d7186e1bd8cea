// POST /v1/agent/prepare/{kind}, one route per row of contract/prepare-kinds.ts: the body is validated here, the pipeline (usecases/prepare/pipeline.ts) runs
// in a worker of the `prepare` queue when the app has a job client (its aggregator calls then spend the
// route budget of the `aggregator` queue), else in this process (the aggregator called directly). The answer is the PrepareResult, already stored as the SignRequest and
// filed for the report card.
import { ApiError } from "../../domain/errors.js";
import { prepareThroughJob } from "../../usecases/prepare/job.js";
import { callerOf } from "../caller.js";
import { checkReceivers, prepareContext, runPrepare } from "../../usecases/prepare/pipeline.js";
import type { PrepareBodies } from "../../usecases/prepare/types.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { knownFields } from "../../contract/fields.js";
import { prepareOperation } from "../../contract/operations/prepare.js";
import { prepareKindRegistry, prepareKinds } from "../../contract/prepare-kinds.js";
import { createRouter } from "../router.js";
import { sameAddress } from "../../domain/address.js";
import { bearerToken } from "../middleware/session.js";
import { sessionOwner } from "../../usecases/sessions.js";

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
    const route = prepareOperation(kind);
    router.openapi(route as ReturnType<typeof prepareOperation>, async (c) => {
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
