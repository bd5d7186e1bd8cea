// GET /v1/agent/vaults, /vaults/{vault}, /vaults/{vault}/prices, /vaults/{vault}/earnings, declared (served by
// api/routes/vaults.ts; the typed client infers its answers from them).
import { createRoute, z } from "@hono/zod-openapi";
import { Address, errorResponses, okResponse } from "../fields.js";
import { AgentVault, AgentVaultDetail, VaultEarnings, VaultPrices } from "../vaults.js";

const tags = ["Vaults"];
const params = z.object({ vault: Address.openapi({ param: { name: "vault", in: "path" }, description: "The vault's address" }) });

export const listVaults = createRoute({
  method: "get",
  path: "/vaults",
  tags,
  summary: "Every vault agents may use",
  description:
    "All families (merged, up, stock-token), full, closed and paused ones included, each with its status and reason, APR, TVL, range, deposit limits, withdrawal modes, fee and the contracts a bundle calls.",
  responses: { 200: okResponse(z.array(AgentVault), "The vaults, merged first, then up, then stock-token"), ...errorResponses() },
});

export const getVault = createRoute({
  method: "get",
  path: "/vaults/{vault}",
  tags,
  summary: "One vault",
  description: "Merged vaults: the detail with 7 days of history and the `agentVault` part. Up and stock-token vaults: their figures and no history.",
  request: { params },
  responses: { 200: okResponse(AgentVaultDetail, "The vault"), ...errorResponses("NOT_AGENT_VAULT") },
});

export const getVaultPrices = createRoute({
  method: "get",
  path: "/vaults/{vault}/prices",
  tags,
  summary: "The vault pool's price every 10 minutes over 7 days",
  description: "10-minute candles of the vault token's USDG pool, in USD. A bucket with no trade carries the previous close forward.",
  request: { params },
  responses: { 200: okResponse(VaultPrices, "The price series"), ...errorResponses("NOT_AGENT_VAULT") },
});

export const getVaultEarnings = createRoute({
  method: "get",
  path: "/vaults/{vault}/earnings",
  tags,
  summary: "Earnings after fees over time",
  description:
    "Harvested income per UTC day over the last 90 days (gross, the vault's fee, net) in the vault's asset and in USD, with cumulative net income since the vault began.",
  request: { params },
  responses: { 200: okResponse(VaultEarnings, "The earnings"), ...errorResponses("NOT_AGENT_VAULT") },
});
