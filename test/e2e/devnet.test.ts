// `npm run devnet` as a user runs it: chain id 4663 over JSON-RPC, and a deployments file that lists
// every contract, each with code on chain.
import { createPublicClient, http, type Address } from "viem";
import { describe, expect, inject, it } from "vitest";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { readJson } from "../helpers/stack.js";

const stack = inject("stack");

describe("the devnet process", () => {
  const client = createPublicClient({ transport: http(stack.rpcUrl) });
  const d = readJson<Deployments>(stack.deploymentsFile);

  it("answers eth_chainId 0x1237", async () => {
    const res = await fetch(stack.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(((await res.json()) as { result: string }).result).toBe("0x1237");
  });

  it("lists every contract family in the deployments file, each with code", async () => {
    const names = [
      "usdg",
      "weth",
      "markets",
      "aggregator",
      "swapRouter",
      "marketMaker",
      "vaultRegistry",
      "stockVaultRouter",
      "limitOrderHook",
      "gridStrategy",
      "ladderStrategy",
      "agentAccountFactory",
      "basketRegistry",
      "basketZap",
      "basketMaker",
    ];
    for (const name of names) expect(d.contracts[name], name).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const all: Address[] = [
      ...Object.values(d.contracts),
      ...d.tokens.map((t) => t.address),
      ...d.tokens.flatMap((t) => (t.pool ? [t.pool] : [])),
      ...d.vaults.flatMap((v) => [v.address, v.depositQueue, v.withdrawalQueue, v.redeemQueue].filter((a): a is Address => !!a)),
      ...d.baskets.map((b) => b.address),
    ];
    for (const address of all) expect(await client.getCode({ address }), address).toMatch(/^0x[0-9a-f]{2,}/);
    expect(new Set(d.vaults.map((v) => v.family))).toEqual(new Set(["merged", "up", "stock-token"]));
    expect(d.tokens.length).toBeGreaterThanOrEqual(13);
  });

  it("keeps the market moving: new blocks arrive while it runs", async () => {
    const a = await client.getBlockNumber({ cacheTime: 0 });
    await new Promise((r) => setTimeout(r, 2500));
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(a);
  });
});
