// GET /v1/agent/policies/privy and /v1/agent/policies/turnkey: wallet policies that allow only the
// service's agent actions (the spec's allow-list), for the current deployments.
import { createRoute, type z } from "@hono/zod-openapi";
import { privyPolicyDocument, turnkeyPolicyDocument, type PolicyDeployments } from "../../domain/policies/index.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { PolicyDocument, PolicyQuery } from "../../contract/policies.js";
import { createRouter } from "../router.js";
import { CHAIN_ID } from "../../domain/chain.js";

/** The builders' document, as the answer schema types it. */
type Doc = z.infer<typeof PolicyDocument>;

const COMMON =
  "Rules for: USDG approve to the agent vaults, queues, routers and grid strategy; token approve to the limit-order hook and to the basket zap; merged vault deposit request, cancel, withdrawal in USDG and in kind (receiver the wallet); up share approve to its withdrawal queue, up deposit and withdrawal requests and their cancel; stock-token share approve to its router, withdrawal in USDG and in kind to the wallet; basket buy and sell through the zap paid to the wallet; limit-order create, cancel, claim and realize; grid open, close, set repeat and collect. " +
  `Every rule needs chain id ${CHAIN_ID} and value 0; calldata is sliced by position; addresses in the conditions are lowercase (as the providers compare them), while \`contracts\` and \`wallet\` are checksummed. Stock-token vault deposits and the up in-kind exit name the receiver inside a struct: sign them at the sign link. Fetch again when the products answer changes.`;

const getPrivy = createRoute({
  method: "get",
  path: "/policies/privy",
  tags: ["Wallet policies"],
  summary: "Privy policy for an agent wallet",
  description: `Privy rules (method eth_sendTransaction, conditions with field_source ethereum_transaction and ethereum_calldata). ${COMMON}`,
  request: { query: PolicyQuery },
  responses: { 200: okResponse(PolicyDocument, "The Privy policy document"), ...errorResponses() },
});

const getTurnkey = createRoute({
  method: "get",
  path: "/policies/turnkey",
  tags: ["Wallet policies"],
  summary: "Turnkey policies for an agent wallet",
  description: `Turnkey policies (conditions on eth.tx.to, eth.tx.data[a..b], eth.tx.chain_id and eth.tx.value; consensus names the agent's non-root user by <USER_ID>). ${COMMON}`,
  request: { query: PolicyQuery },
  responses: { 200: okResponse(PolicyDocument, "The Turnkey policy document"), ...errorResponses() },
});

export const policyRoutes = (deps: Pick<AppDeps, "deployments">) => {
  const d = deps.deployments as unknown as PolicyDeployments;
  return createRouter<AppEnv>()
    .openapi(getPrivy, (c) => ok(c, privyPolicyDocument(d, c.req.valid("query").wallet) as Doc))
    .openapi(getTurnkey, (c) => ok(c, turnkeyPolicyDocument(d, c.req.valid("query").wallet) as Doc));
};
