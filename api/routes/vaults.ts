// GET /v1/agent/vaults, /vaults/{vault}, /vaults/{vault}/prices, /vaults/{vault}/earnings: the vaults
// agents may use. Any other vault (unknown, not listed, or not for agents) answers 404 NOT_AGENT_VAULT.
import { ApiError } from "../../domain/errors.js";
import { agentVaultDetail, agentVaultEarnings, agentVaultList, agentVaultPrices } from "../../usecases/answers/vaults.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { getVault, getVaultEarnings, getVaultPrices, listVaults } from "../../contract/operations/vaults.js";
import { createRouter } from "../router.js";

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
