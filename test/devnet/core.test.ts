// Core devnet contracts: pools price and swap, the aggregator routes any token to any token,
// the swap router pays the owner and keeps exactly 0.1%, the market maker moves prices.
import { encodeFunctionData, getAddress, parseEventLogs, parseUnits, type Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { marketMakerAbi, poolAbi, swapRouterAbi, testTokenAbi } from "../../abis/index.js";
import { accountAddress } from "../../devnet/chain.js";
import { createDevAggregator } from "../../adapters/chain/dev-aggregator.js";
import { priceToX18 } from "../../domain/price.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let f: CoreFixture;
const owner = accountAddress(1);
const token = (symbol: string) => f.core.tokens.find((t) => t.symbol === symbol)!;
const balance = (t: Address, who: Address) => f.chain.publicClient.readContract({ address: t, abi: testTokenAbi, functionName: "balanceOf", args: [who] });

beforeAll(async () => {
  f = await bootCore([]);
});

describe("core devnet contracts", () => {
  it("runs on chain 4663 and funds the test wallets with every token", async () => {
    expect(await f.chain.publicClient.getChainId()).toBe(4663);
    for (const t of f.core.tokens) expect(await balance(t.address, accountAddress(9))).toBeGreaterThan(0n);
  });

  it("keeps its clock at the wall clock while it mines more than a block a second", async () => {
    // Automine's block a transaction, each a second after the last, ran the soak's chain 8 minutes ahead of the
    // wall clock in 10: filings stopped matching their calls and x402 payments expired.
    const wallet = f.chain.walletFor(2);
    await f.chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(Date.now() / 1000)) });
    const from = await f.chain.publicClient.getBlockNumber();
    for (let i = 0; i < 120; i++) await wallet.sendTransaction({ to: accountAddress(3), value: 1n, chain: null, account: accountAddress(2) });
    const block = await f.chain.publicClient.getBlock();
    expect(block.number - from).toBe(120n);
    expect(Number(block.timestamp)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 2);
  });

  it("prices each pool near its starting price", async () => {
    const weth = token("WETH");
    const price = await f.chain.publicClient.readContract({ address: weth.pool!, abi: poolAbi, functionName: "priceX18" });
    expect(Number(price) / 1e18).toBeCloseTo(3000, 0);
  });

  it("moves prices to targets through the market maker, with Swap events", async () => {
    const link = token("LINK");
    const hash = await f.chain.walletFor(11).writeContract({
      address: f.core.marketMaker,
      abi: marketMakerAbi,
      functionName: "moveTo",
      args: [[link.pool!], [priceToX18(16.5)]],
    });
    const receipt = await f.chain.publicClient.waitForTransactionReceipt({ hash });
    const swaps = parseEventLogs({ abi: poolAbi, logs: receipt.logs, eventName: "Swap" });
    expect(swaps).toHaveLength(1);
    const price = await f.chain.publicClient.readContract({ address: link.pool!, abi: poolAbi, functionName: "priceX18" });
    expect(Number(price) / 1e18).toBeCloseTo(16.5, 1);
  });

  it("swaps through the router: owner gets at least the minimum, router keeps exactly 0.1%", async () => {
    const usdg = f.core.usdg;
    const link = token("LINK").address;
    const aggregator = createDevAggregator({ client: f.chain.publicClient, address: f.core.aggregator, markets: f.core.markets, usdg });
    const amountIn = parseUnits("1000", 6);
    const route = await aggregator.route({ tokenIn: usdg, tokenOut: link, amountIn, recipient: f.core.swapRouter, slippageBps: 50 });
    const minAmountOut = (((route.amountOut * 999n) / 1000n) * 9950n) / 10000n;
    const wallet = f.chain.walletFor(1);
    await f.chain.publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: usdg, abi: testTokenAbi, functionName: "approve", args: [f.core.swapRouter, amountIn] }),
    });
    const before = await balance(link, owner);
    const hash = await wallet.writeContract({
      address: f.core.swapRouter,
      abi: swapRouterAbi,
      functionName: "swap",
      args: [{ tokenIn: usdg, tokenOut: link, amountIn, minAmountOut, recipient: owner, aggregator: f.core.aggregator, route: route.data }],
    });
    const receipt = await f.chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const [ev] = parseEventLogs({ abi: swapRouterAbi, logs: receipt.logs, eventName: "Swapped" });
    const got = (await balance(link, owner)) - before;
    expect(got).toBe(ev!.args.amountOut);
    expect(got).toBeGreaterThanOrEqual(minAmountOut);
    expect(ev!.args.fee).toBe((got + ev!.args.fee) / 1000n);
    expect(await balance(link, f.core.swapRouter)).toBe(ev!.args.fee);
    expect(getAddress(ev!.args.recipient)).toBe(owner);
    // The router's approval is used up exactly.
    expect(await f.chain.publicClient.readContract({ address: usdg, abi: testTokenAbi, functionName: "allowance", args: [owner, f.core.swapRouter] })).toBe(0n);
  });

  it("refuses a swap whose aggregator is not the router's", async () => {
    const usdg = f.core.usdg;
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: "totalSupply" });
    await expect(
      f.chain.publicClient.simulateContract({
        account: owner,
        address: f.core.swapRouter,
        abi: swapRouterAbi,
        functionName: "swap",
        args: [{ tokenIn: usdg, tokenOut: token("WETH").address, amountIn: 1n, minAmountOut: 0n, recipient: owner, aggregator: owner, route: data }],
      }),
    ).rejects.toThrow(/SWAP_CONTRACTS_CHANGED/);
  });
});
