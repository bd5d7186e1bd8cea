// Bundle builders of the prepare routes: pure functions from checked inputs to unsigned steps.
export * from "./types.js";
export * from "./vault-deposit.js";
export * from "./vault-cancel-deposit.js";
export * from "./vault-withdraw.js";
export * from "./vault-cancel-withdraw.js";
export * from "./limit-order.js";
export * from "./ladder.js";
export * from "./order-action.js";
export * from "./grid.js";
export * from "./ladder-strategy.js";
export * from "./swap.js";
export * from "./basket-buy.js";
export * from "./basket-sell.js";
export * from "./basket-make.js";
export * from "./wallet-send-calls.js";
export * from "./decode.js";
export * from "./allow-list.js";
