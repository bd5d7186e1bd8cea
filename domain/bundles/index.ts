// Bundle builders of the prepare routes: pure functions from checked inputs to unsigned steps.
export * from "./types.js";
export * from "../products/vaults/deposit.js";
export * from "../products/vaults/cancel-deposit.js";
export * from "../products/vaults/withdraw.js";
export * from "../products/vaults/cancel-withdraw.js";
export * from "../products/limit-orders/limit-order.js";
export * from "../products/limit-orders/ladder.js";
export * from "../products/limit-orders/order-action.js";
export * from "../products/grid/grid.js";
export * from "../products/ladder-strategy/ladder-strategy.js";
export * from "../products/swap/swap.js";
export * from "../products/baskets/buy.js";
export * from "../products/baskets/sell.js";
export * from "../products/baskets/make.js";
export * from "./wallet-send-calls.js";
export * from "./decode.js";
export * from "./allow-list.js";
