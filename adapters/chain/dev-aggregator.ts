// The devnet's Aggregator: quotes and routes over the devnet pools through the DevAggregator executor.
import { encodeFunctionData, type Address, type PublicClient } from "viem";
import { devAggregatorAbi, marketRegistryAbi, poolAbi } from "../../abis/index.js";
import { NoRouteError, type Aggregator, type AggregatorQuote, type AggregatorQuoteRequest } from "./aggregator.js";
import { sameAddress } from "../../domain/address.js";

export type DevAggregatorOptions = {
  client: PublicClient;
  address: Address;
  markets: Address;
  usdg: Address;
};

const BPS = 10_000n;

export function createDevAggregator(opts: DevAggregatorOptions): Aggregator {
  const { client, address, markets, usdg } = opts;

  async function poolOf(token: Address): Promise<Address> {
    const pool = await client.readContract({ address: markets, abi: marketRegistryAbi, functionName: "poolOf", args: [token] });
    if (/^0x0+$/.test(pool)) throw new NoRouteError(token, token);
    return pool;
  }

  /** Output at the pools' spot prices with no impact and no LP fee, to measure impact against. */
  async function spotOut(tokenIn: Address, tokenOut: Address, amountIn: bigint): Promise<bigint> {
    let amount = amountIn;
    for (const [token, selling] of [
      [tokenIn, true],
      [tokenOut, false],
    ] as const) {
      if (sameAddress(token, usdg)) continue;
      const [rToken, rUsdg] = await client.readContract({ address: await poolOf(token), abi: poolAbi, functionName: "getReserves" });
      if (rToken === 0n || rUsdg === 0n) throw new NoRouteError(tokenIn, tokenOut);
      amount = selling ? (amount * rUsdg) / rToken : (amount * rToken) / rUsdg;
    }
    return amount;
  }

  async function quote(req: AggregatorQuoteRequest): Promise<AggregatorQuote> {
    if (sameAddress(req.tokenIn, req.tokenOut) || req.amountIn <= 0n) throw new NoRouteError(req.tokenIn, req.tokenOut);
    let amountOut: bigint;
    try {
      amountOut = await client.readContract({ address, abi: devAggregatorAbi, functionName: "quote", args: [req.tokenIn, req.tokenOut, req.amountIn] });
    } catch {
      throw new NoRouteError(req.tokenIn, req.tokenOut);
    }
    if (amountOut === 0n) throw new NoRouteError(req.tokenIn, req.tokenOut);
    const ideal = await spotOut(req.tokenIn, req.tokenOut, req.amountIn);
    const priceImpactBps = ideal > amountOut ? Number(((ideal - amountOut) * BPS) / ideal) : 0;
    const path = [req.tokenIn, ...(sameAddress(req.tokenIn, usdg) || sameAddress(req.tokenOut, usdg) ? [] : [usdg]), req.tokenOut];
    return { ...req, amountOut, priceImpactBps, path };
  }

  return {
    address,
    quote,
    async route(req) {
      const q = await quote(req);
      const minAmountOut = (q.amountOut * (BPS - BigInt(req.slippageBps))) / BPS;
      const data = encodeFunctionData({
        abi: devAggregatorAbi,
        functionName: "swap",
        args: [req.tokenIn, req.tokenOut, req.amountIn, minAmountOut, req.recipient],
      });
      return { ...q, to: address, data, minAmountOut, recipient: req.recipient };
    },
  };
}
