// GET /v1/agent/policies/privy and /v1/agent/policies/turnkey: wallet policies that allow only the
// service's agent actions (the spec's allow-list), for the current deployments.
import type { z } from "@hono/zod-openapi";
import { privyPolicyDocument, turnkeyPolicyDocument, type PolicyDeployments } from "../../domain/policies/index.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import type { PolicyDocument } from "../../contract/policies.js";
import { createRouter } from "../router.js";
import { getPrivy, getTurnkey } from "../../contract/operations/policies.js";

/** The builders' document, as the answer schema types it. */
type Doc = z.infer<typeof PolicyDocument>;

export const policyRoutes = (deps: Pick<AppDeps, "deployments">) => {
  const d = deps.deployments as unknown as PolicyDeployments;
  return createRouter<AppEnv>()
    .openapi(getPrivy, (c) => ok(c, privyPolicyDocument(d, c.req.valid("query").wallet) as Doc))
    .openapi(getTurnkey, (c) => ok(c, turnkeyPolicyDocument(d, c.req.valid("query").wallet) as Doc));
};
