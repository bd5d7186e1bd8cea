// Tokens, their USDG pools, swaps and candles.
import { ponder, type Context } from "ponder:registry";
import { candle10m, candle1h, market, poolSwap, token } from "ponder:schema";
import { erc20Abi, type Address } from "viem";
import { poolAbi } from "../abis/index.js";
import { spotPriceX18 } from "../domain/price.js";
import { listedToken } from "../adapters/chain/token-list.js";
import { sameAddress } from "../domain/address.js";

const candleStart = (timestamp: number, period: number) => timestamp - (timestamp % period);

// A new market charts its token: read its metadata once, and whether the service lists it.
ponder.on("MarketRegistry:PoolCreated", async ({ event, context }) => {
  const address = event.args.token;
  const [symbol, name, decimals] = await Promise.all([
    context.client.readContract({ address, abi: erc20Abi, functionName: "symbol" }),
    context.client.readContract({ address, abi: erc20Abi, functionName: "name" }),
    context.client.readContract({ address, abi: erc20Abi, functionName: "decimals" }),
  ]);
  const listed = listedToken(address);
  const quoteIs0 = await context.client.readContract({ address: event.args.pool, abi: poolAbi, functionName: "quoteIs0" });
  await context.db.insert(market).values({ pool: event.args.pool, token: address, quoteIs0, createdAt: Number(event.block.timestamp) });
  await context.db.insert(token).values({
    address,
    symbol,
    name,
    decimals,
    category: listed?.category ?? "unclassified",
    verified: listed !== undefined,
    pool: event.args.pool,
    priceX18: 0n,
    reserveToken: 0n,
    reserveUsdg: 0n,
    swaps: 0,
    updatedAt: Number(event.block.timestamp),
  });
});

ponder.on("Pool:LiquidityAdded", async ({ event, context }) => {
  const row = await context.db.find(token, { address: await poolToken(context, event.log.address) });
  if (!row) return;
  await context.db.update(token, { address: row.address }).set({
    reserveToken: event.args.reserveToken,
    reserveUsdg: event.args.reserveUsdg,
    priceX18: spotPriceX18(event.args.reserveToken, row.decimals, event.args.reserveUsdg),
    updatedAt: Number(event.block.timestamp),
  });
});

// Each swap moves the price: record it and fold it into the 10-minute and hourly candles.
ponder.on("Pool:Swap", async ({ event, context }) => {
  const address = await poolToken(context, event.log.address);
  const row = (await context.db.find(token, { address }))!;
  const { reserveToken, reserveUsdg, tokenIn, amountIn, amountOut } = event.args;
  const priceX18 = spotPriceX18(reserveToken, row.decimals, reserveUsdg);
  const sellToken = sameAddress(tokenIn, address);
  const volumeUsdg = sellToken ? amountOut : amountIn;
  const timestamp = Number(event.block.timestamp);
  await context.db.insert(poolSwap).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    pool: event.log.address,
    token: address,
    sender: event.args.sender,
    recipient: event.args.recipient,
    sellToken,
    amountIn,
    amountOut,
    volumeUsdg,
    priceX18,
    blockNumber: event.block.number,
    timestamp,
    txHash: event.transaction.hash,
  });
  await context.db.update(token, { address }).set({ priceX18, reserveToken, reserveUsdg, swaps: row.swaps + 1, updatedAt: timestamp });
  for (const [table, period] of [
    [candle10m, 600],
    [candle1h, 3600],
  ] as const) {
    const start = candleStart(timestamp, period);
    await context.db
      .insert(table)
      .values({ token: address, start, open: priceX18, high: priceX18, low: priceX18, close: priceX18, volumeUsdg, trades: 1 })
      .onConflictDoUpdate((c) => ({
        high: c.high > priceX18 ? c.high : priceX18,
        low: c.low < priceX18 ? c.low : priceX18,
        close: priceX18,
        volumeUsdg: c.volumeUsdg + volumeUsdg,
        trades: c.trades + 1,
      }));
  }
});

/** The token of a pool (its market row is written when the pool is created). */
async function poolToken(context: Context, pool: Address): Promise<Address> {
  const row = await context.db.find(market, { pool });
  if (!row) throw new Error(`swap on unknown pool ${pool}`);
  return row.token;
}
