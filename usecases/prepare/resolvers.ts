// One resolver per prepare kind (contract/prepare-kinds.ts lists the kinds): a kind without a resolver, or a
// resolver without a kind, does not compile. The pipeline (./pipeline.ts) runs the one the request names.
import type { PrepareKind } from "../../contract/prepare-kinds.js";
import { resolveBasketBuy } from "./resolve/basket-buy.js";
import { resolveBasketMake } from "./resolve/basket-make.js";
import { resolveBasketSell } from "./resolve/basket-sell.js";
import { resolveGrid } from "./resolve/grid.js";
import { resolveLadderStrategy } from "./resolve/ladder-strategy.js";
import { resolveLadder, resolveLimitOrder, resolveOrderAction } from "./resolve/orders.js";
import { resolveSwap } from "./resolve/swap.js";
import { resolveVaultCancelDeposit, resolveVaultCancelWithdraw } from "./resolve/vault-cancel.js";
import { resolveVaultDeposit } from "./resolve/vault-deposit.js";
import { resolveVaultWithdraw } from "./resolve/vault-withdraw.js";
import type { Resolver } from "./types.js";

export const resolvers = {
  "vault-deposit": resolveVaultDeposit,
  "vault-cancel-deposit": resolveVaultCancelDeposit,
  "vault-withdraw": resolveVaultWithdraw,
  "vault-cancel-withdraw": resolveVaultCancelWithdraw,
  "limit-order": resolveLimitOrder,
  ladder: resolveLadder,
  "order-action": resolveOrderAction,
  grid: resolveGrid,
  "ladder-strategy": resolveLadderStrategy,
  swap: resolveSwap,
  "basket-buy": resolveBasketBuy,
  "basket-sell": resolveBasketSell,
  "basket-make": resolveBasketMake,
} satisfies { [K in PrepareKind]: Resolver<K> };
