// Bundle builders of the prepare routes (each product's, domain/products/), the money-safety check and the
// allow-list: pure functions from checked inputs to unsigned steps, and their checks.
export * from "./types.js";
export * from "../products/vaults/index.js";
export * from "../products/limit-orders/index.js";
export * from "../products/grid/index.js";
export * from "../products/ladder-strategy/index.js";
export * from "../products/swap/index.js";
export * from "../products/baskets/index.js";
export { bundleKinds, type BundleKind } from "../products/index.js";
export * from "./wallet-send-calls.js";
export * from "./decode.js";
export * from "./allow-list.js";
