// The indexer's projections are the chain's: over the seeded devnet, every vault's supply and every
// holder's shares, every limit order, grid, ladder (with its parts) and basket (balances, supply, every
// holder) equal what the contracts answer to eth_call at the block the indexer has indexed.
import { describe, expect, inject, it } from "vitest";
import { differencesFromChain } from "../helpers/indexer.js";

const stack = inject("stack");

describe("the indexer against the chain", () => {
  it("projects every vault, holder, order, grid, ladder and basket as the contracts answer at one block", async () => {
    const { block, checked, differences } = await differencesFromChain(stack);
    expect(block).toBeGreaterThan(0);
    expect(differences).toEqual([]);
    // The seeded history has something of each kind to compare.
    for (const what of ["vault", "vault_position", "limit_order", "grid", "ladder", "ladder_leg", "basket", "basket_balance"]) {
      expect(checked[what] ?? 0, what).toBeGreaterThan(0);
    }
  });
});
