// The prepare kinds, one row each: the body of POST /v1/agent/prepare/{kind}, with the refusals its route
// documents and the simulation reverts the pipeline answers as those refusals, which its product declares
// (domain/products/<product>/index.ts). The route, its OpenAPI entry (hence the MCP tool), the typed client
// and the pipeline read this; the resolvers are in usecases/prepare/resolvers.ts.
import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../domain/errors.js";
import { prepareKindRefusals as refusals } from "../domain/products/index.js";
import {
  BasketBuyBody,
  BasketMakeBody,
  BasketSellBody,
  GridBody,
  LadderBody,
  LadderStrategyBody,
  LimitOrderBody,
  OrderActionBody,
  SwapBody,
  VaultCancelDepositBody,
  VaultCancelWithdrawBody,
  VaultDepositBody,
  VaultWithdrawBody,
} from "./prepare.js";

/** Refusals every prepare route may answer, whatever its kind. */
export const PREPARE_REFUSALS: ErrorCode[] = ["RECEIVER_NOT_OWNER", "SIMULATION_FAILED", "NOT_FOUND", "BUSY", "NOT_DEPLOYED"];

/**
 * A token's own refusals of a transfer (paused, or a side frozen): any kind's bundle moves tokens, so the
 * pipeline answers these reverts for every kind. Documented only where the resolver refuses them too (the basket kinds).
 */
export const TRANSFER_REVERTS: ErrorCode[] = ["TOKEN_FROZEN", "TOKEN_PAUSED"];

export const prepareKindRegistry = {
  "vault-deposit": { body: VaultDepositBody, ...refusals["vault-deposit"] },
  "vault-cancel-deposit": { body: VaultCancelDepositBody, ...refusals["vault-cancel-deposit"] },
  "vault-withdraw": { body: VaultWithdrawBody, ...refusals["vault-withdraw"] },
  "vault-cancel-withdraw": { body: VaultCancelWithdrawBody, ...refusals["vault-cancel-withdraw"] },
  "limit-order": { body: LimitOrderBody, ...refusals["limit-order"] },
  ladder: { body: LadderBody, ...refusals.ladder },
  "order-action": { body: OrderActionBody, ...refusals["order-action"] },
  grid: { body: GridBody, ...refusals.grid },
  "ladder-strategy": { body: LadderStrategyBody, ...refusals["ladder-strategy"] },
  swap: { body: SwapBody, ...refusals.swap },
  "basket-buy": { body: BasketBuyBody, ...refusals["basket-buy"] },
  "basket-sell": { body: BasketSellBody, ...refusals["basket-sell"] },
  "basket-make": { body: BasketMakeBody, ...refusals["basket-make"] },
} satisfies Record<keyof typeof refusals, { body: z.ZodType }>;

export type PrepareKind = keyof typeof prepareKindRegistry;

/** The kinds in the registry's order (the document's order of the prepare routes). */
export const prepareKinds = Object.keys(prepareKindRegistry) as PrepareKind[];
