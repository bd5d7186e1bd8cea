// Swap: one token for another through the service's swap router. The builder is ./swap.ts; the call's words
// are ./calls.ts. Swaps are not on the wallet-policy allow-list (signed at the sign link) and are not graded.
import { notGraded } from "../../grading/plan.js";
import { prepareKind, type Product } from "../product.js";
import { swapCalls } from "./calls.js";

export * from "./swap.js";

export const swap = {
  name: "swap",
  contracts: [{ key: "swapRouter", name: "the service's swap router", abi: "swapRouterAbi" }],
  kinds: {
    swap: prepareKind({
      refusals: ["UNKNOWN_TOKEN", "NOT_A_TOKEN", "SAME_TOKEN", "NATIVE_ETH_IN", "SWAP_NO_ROUTE", "SWAP_PAUSED", "SWAP_CONTRACTS_CHANGED", "SWAP_UNAVAILABLE"],
      reverts: ["SWAP_PAUSED"],
    }),
  },
  bundles: { swap: { title: "Swap", grade: () => notGraded("swap", "swap") } },
  calls: swapCalls,
} satisfies Product;
