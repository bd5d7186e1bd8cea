// GET /v1/agent/vaults, /vaults/{vault}, /vaults/{vault}/prices, /vaults/{vault}/earnings: the vaults
// agents may use. Any other vault (unknown, not listed, or not for agents) answers 404 NOT_AGENT_VAULT.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../domain/errors.js";
import { agentVaultDetail, agentVaultEarnings, agentVaultList, agentVaultPrices } from "../../usecases/answers/vaults.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { Address, errorResponses, okResponse } from "../../contract/fields.js";
import { AgentVault, AgentVaultDetail, VaultEarnings, VaultPrices } from "../../contract/vaults.js";
import { createRouter } from "../router.js";

const tags = ["Vaults"];
const params = z.object({ vault: Address.openapi({ param: { name: "vault", in: "path" }, description: "The vault's address" }) });

const listVaults = createRoute({
  method: "get",
  path: "/vaults",
  tags,
  summary: "Every vault agents may use",
  description:
    "All families (merged, up, stock-token), full, closed and paused ones included, each with its status and reason, APR, TVL, range, deposit limits, withdrawal modes, fee and the contracts a bundle calls.",
  responses: { 200: okResponse(z.array(AgentVault), "The vaults, merged first, then up, then stock-token"), ...errorResponses() },
});

const getVault = createRoute({
  method: "get",
  path: "/vaults/{vault}",
  tags,
  summary: "One vault",
  description: "Merged vaults: the detail with 7 days of history and the `agentVault` part. Up and stock-token vaults: their figures and no history.",
  request: { params },
  responses: { 200: okResponse(AgentVaultDetail, "The vault"), ...errorResponses("NOT_AGENT_VAULT") },
});

const getVaultPrices = createRoute({
  method: "get",
  path: "/vaults/{vault}/prices",
  tags,
  summary: "The vault pool's price every 10 minutes over 7 days",
  description: "10-minute candles of the vault token's USDG pool, in USD. A bucket with no trade carries the previous close forward.",
  request: { params },
  responses: { 200: okResponse(VaultPrices, "The price series"), ...errorResponses("NOT_AGENT_VAULT") },
});

const getVaultEarnings = createRoute({
  method: "get",
  path: "/vaults/{vault}/earnings",
  tags,
  summary: "Earnings after fees over time",
  description:
    "Harvested income per UTC day over the last 90 days (gross, the vault's fee, net) in the vault's asset and in USD, with cumulative net income since the vault began.",
  request: { params },
  responses: { 200: okResponse(VaultEarnings, "The earnings"), ...errorResponses("NOT_AGENT_VAULT") },
});

const seconds = (deps: Pick<AppDeps, "now">) => Math.floor(deps.now().getTime() / 1000);
const found = <T>(value: T | undefined): T => {
  if (value === undefined) throw new ApiError("NOT_AGENT_VAULT");
  return value;
};

export const vaultRoutes = (deps: Pick<AppDeps, "reads" | "deployments" | "now">) =>
  createRouter<AppEnv>()
    .openapi(listVaults, async (c) => ok(c, await agentVaultList(deps, seconds(deps))))
    .openapi(getVault, async (c) => ok(c, found(await agentVaultDetail(deps, c.req.valid("param").vault, seconds(deps)))))
    .openapi(getVaultPrices, async (c) => ok(c, found(await agentVaultPrices(deps, c.req.valid("param").vault, seconds(deps)))))
    .openapi(getVaultEarnings, async (c) => ok(c, found(await agentVaultEarnings(deps, c.req.valid("param").vault, seconds(deps)))));
