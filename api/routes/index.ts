// The route groups createApp mounts. An operation is declared in contract/operations/ (its path, input,
// answer, security and description: the OpenAPI document, the MCP tools and the typed client come from it):
//
//   export const getVault = createRoute({
//     method: "get", path: "/vaults/{vault}",                  // relative to the mount
//     request: { params: z.object({ vault: Address }) },       // validated before the handler
//     responses: { 200: okResponse(AgentVaultDetail, "..."), ...errorResponses("NOT_AGENT_VAULT") },
//   });
//
// and served by a route file here, which exports a RouteGroup, a factory of the deps:
//
//   export const vaultRoutes = (deps: AppDeps) =>
//     createRouter<AppEnv>().openapi(getVault, async (c) => {
//       const vault = await readVault(deps.db, c.req.valid("param").vault);
//       if (!vault) throw new ApiError("NOT_AGENT_VAULT");
//       return ok(c, vault);                                    // {data}, bigints as strings
//     });
//
// and gets one line below. Handlers hold only the route's own logic: validation, errors,
// envelopes, limits, logs, metrics and the OpenAPI entry come from the foundation.
import type { RouteGroup } from "../deps.js";
import { accountRoutes } from "./accounts.js";
import { backtestRoutes } from "./backtests.js";
import { basketPlanRoutes } from "./baskets-plan.js";
import { swapRoutes } from "./swap.js";
import { activityRoutes } from "./activity.js";
import { basketRoutes } from "./baskets.js";
import { policyRoutes } from "./policies.js";
import { prepareRoutes } from "./prepare.js";
import { productRoutes } from "./products.js";
import { reportCardRoutes } from "./report-card.js";
import { sessionRoutes } from "./session.js";
import { signRequestRoutes } from "./sign-requests.js";
import { strategyFinderRoutes } from "./strategy-finder.js";
import { tokenRoutes } from "./tokens.js";
import { vaultRoutes } from "./vaults.js";

/** Mounted at /v1/agent: their paths are relative to it ("/vaults/{vault}"). The discovery routes
 * (skill.md, llms.txt, reference) are mounted there too, by createApp, which hands them the document. */
export const agentRouteGroups: RouteGroup[] = [
  signRequestRoutes,
  accountRoutes,
  activityRoutes,
  productRoutes,
  vaultRoutes,
  prepareRoutes,
  swapRoutes,
  basketPlanRoutes,
  sessionRoutes,
  reportCardRoutes,
  policyRoutes,
  backtestRoutes,
];

/** Mounted at /v1 (public routes outside /v1/agent: /tokens, /baskets, /strategy-finder...). */
export const publicRouteGroups: RouteGroup[] = [tokenRoutes, basketRoutes, strategyFinderRoutes];
