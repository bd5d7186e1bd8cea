// vault-cancel-deposit and vault-cancel-withdraw: take back one of the owner's pending queue requests.
// The request is read from the projections: unknown 404 NOT_FOUND, another wallet's 422
// NOT_YOUR_REQUEST, settled or cancelled 422 REQUEST_NOT_PENDING.
import { depositRequestOf, withdrawalRequestOf } from "../../../adapters/db/reads/vault-requests.js";
import { buildVaultCancelDeposit, buildVaultCancelWithdraw } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { toId } from "./numbers.js";
import { agentVault } from "./contracts.js";
import { sameAddress } from "../../../domain/address.js";

type Request = { owner: string; state: string } | undefined;

function checkRequest(request: Request, owner: string, what: string, id: bigint) {
  if (!request) throw new ApiError("NOT_FOUND", `no ${what} request ${id} in this vault`);
  if (!sameAddress(request.owner, owner)) throw new ApiError("NOT_YOUR_REQUEST", `${what} request ${id} belongs to another wallet`);
  if (request.state !== "pending") throw new ApiError("REQUEST_NOT_PENDING", `${what} request ${id} is ${request.state}`);
}

export const resolveVaultCancelDeposit: Resolver<"vault-cancel-deposit"> = async (ctx, body, owner) => {
  const { deployed } = await agentVault(ctx, body.vault);
  const id = toId("id", body.id);
  const queue = deployed.family === "merged" ? deployed.address : deployed.family === "up" ? deployed.depositQueue : undefined;
  if (!queue) throw invalid("vault", "stock-token vaults take deposits at once and have no requests to cancel");
  const request = await depositRequestOf(ctx.reads, queue, id);
  checkRequest(request, owner, "deposit", id);
  const bundle = build("vault-cancel-deposit", () =>
    buildVaultCancelDeposit({ family: deployed.family, owner, vault: deployed.address, id, depositQueue: deployed.depositQueue }),
  );
  return { bundle, priceToken: deployed.token };
};

export const resolveVaultCancelWithdraw: Resolver<"vault-cancel-withdraw"> = async (ctx, body, owner) => {
  const { deployed } = await agentVault(ctx, body.vault);
  const id = toId("id", body.id);
  const queue = deployed.family === "merged" ? deployed.redeemQueue : deployed.family === "up" ? deployed.withdrawalQueue : undefined;
  if (!queue) throw invalid("vault", "this vault has no withdrawal queue");
  const request = await withdrawalRequestOf(ctx.reads, queue, id);
  checkRequest(request, owner, "withdrawal", id);
  const bundle = build("vault-cancel-withdraw", () =>
    buildVaultCancelWithdraw({
      family: deployed.family,
      owner,
      vault: deployed.address,
      id,
      redeemQueue: deployed.redeemQueue,
      withdrawalQueue: deployed.withdrawalQueue,
    }),
  );
  return { bundle, priceToken: deployed.token };
};
