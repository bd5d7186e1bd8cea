// GET /v1/agent/policies/privy and /policies/turnkey, declared (served by api/routes/policies.ts).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { PolicyDocument, PolicyQuery } from "../policies.js";
import { CHAIN_ID } from "../../domain/chain.js";

const COMMON =
  "Rules for: USDG approve to the agent vaults, queues, routers and grid strategy; token approve to the limit-order hook and to the basket zap; merged vault deposit request, cancel, withdrawal in USDG and in kind (receiver the wallet); up share approve to its withdrawal queue, up deposit and withdrawal requests and their cancel; stock-token share approve to its router, withdrawal in USDG and in kind to the wallet; basket buy and sell through the zap paid to the wallet; limit-order create, cancel, claim and realize; grid open, close, set repeat and collect. " +
  `Every rule needs chain id ${CHAIN_ID} and value 0; calldata is sliced by position; addresses in the conditions are lowercase (as the providers compare them), while \`contracts\` and \`wallet\` are checksummed. Stock-token vault deposits and the up in-kind exit name the receiver inside a struct: sign them at the sign link. Fetch again when the products answer changes.`;

export const getPrivy = createRoute({
  method: "get",
  path: "/policies/privy",
  tags: ["Wallet policies"],
  summary: "Privy policy for an agent wallet",
  description: `Privy rules (method eth_sendTransaction, conditions with field_source ethereum_transaction and ethereum_calldata). ${COMMON}`,
  request: { query: PolicyQuery },
  responses: { 200: okResponse(PolicyDocument, "The Privy policy document"), ...errorResponses() },
});

export const getTurnkey = createRoute({
  method: "get",
  path: "/policies/turnkey",
  tags: ["Wallet policies"],
  summary: "Turnkey policies for an agent wallet",
  description: `Turnkey policies (conditions on eth.tx.to, eth.tx.data[a..b], eth.tx.chain_id and eth.tx.value; consensus names the agent's non-root user by <USER_ID>). ${COMMON}`,
  request: { query: PolicyQuery },
  responses: { 200: okResponse(PolicyDocument, "The Turnkey policy document"), ...errorResponses() },
});
