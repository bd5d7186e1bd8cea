// Baskets: made through the basket maker, listed by the registry, and their pools' joins, exits,
// swaps and basket-token balances.
import { ponder, type Context } from "ponder:registry";
import { basket, basketBalance } from "ponder:schema";
import { type Address, zeroAddress } from "viem";
import { logChanges, recordExecutedCalls, transferChanges, transferSides } from "./activity.js";
import { sameAddress } from "../domain/address.js";

const toStrings = (xs: readonly bigint[]) => xs.map((x) => x.toString());

// The maker announces a basket before its first deposit.
ponder.on("BasketMaker:BasketMade", async ({ event, context }) => {
  const { pool, creator, name, symbol, tokens, normalizedWeights, swapFeePercentage } = event.args;
  const zeros = tokens.map(() => "0");
  await context.db.insert(basket).values({
    address: pool,
    name,
    symbol,
    tokens: [...tokens],
    weights: toStrings(normalizedWeights),
    balances: zeros,
    swapFeesCollected: zeros,
    swapFeePercentage,
    maker: creator,
    listed: false,
    sellOnly: false,
    paused: false,
    totalSupply: 0n,
    createdAt: Number(event.block.timestamp),
    updatedAt: Number(event.block.timestamp),
  });
  await recordExecutedCalls(context, event);
});

ponder.on("BasketRegistry:BasketListed", async ({ event, context }) => {
  await context.db.update(basket, { address: event.args.pool }).set({ listed: event.args.listed, updatedAt: Number(event.block.timestamp) });
});

ponder.on("BasketRegistry:BasketSellOnly", async ({ event, context }) => {
  await context.db.update(basket, { address: event.args.pool }).set({ sellOnly: event.args.sellOnly, updatedAt: Number(event.block.timestamp) });
});

ponder.on("BasketPool:PausedSet", async ({ event, context }) => {
  await context.db.update(basket, { address: event.log.address }).set({ paused: event.args.paused, updatedAt: Number(event.block.timestamp) });
});

/** Applies per-token deltas to a basket's pool balances. */
async function moveBalances(
  context: Context,
  pool: Address,
  timestamp: bigint,
  delta: (i: number, token: string) => bigint,
  fees?: (i: number, token: string) => bigint,
) {
  await context.db.update(basket, { address: pool }).set((row) => ({
    balances: row.balances.map((b, i) => (BigInt(b) + delta(i, row.tokens[i]!)).toString()),
    swapFeesCollected: fees ? row.swapFeesCollected.map((f, i) => (BigInt(f) + fees(i, row.tokens[i]!)).toString()) : row.swapFeesCollected,
    updatedAt: Number(timestamp),
  }));
}

ponder.on("BasketPool:Joined", async ({ event, context }) => {
  await moveBalances(context, event.log.address, event.block.timestamp, (i) => event.args.amountsIn[i] ?? 0n);
});

ponder.on("BasketPool:Exited", async ({ event, context }) => {
  await moveBalances(context, event.log.address, event.block.timestamp, (i) => -(event.args.amountsOut[i] ?? 0n));
});

ponder.on("BasketPool:BasketSwap", async ({ event, context }) => {
  const { tokenIn, tokenOut, amountIn, amountOut, fee } = event.args;
  await moveBalances(
    context,
    event.log.address,
    event.block.timestamp,
    (_, t) => (sameAddress(t, tokenIn) ? amountIn : sameAddress(t, tokenOut) ? -amountOut : 0n),
    (_, t) => (sameAddress(t, tokenIn) ? fee : 0n),
  );
});

// Basket-token moves: holders' balances, the supply, and a change for each side.
ponder.on("BasketPool:Transfer", async ({ event, context }) => {
  const { from, to, value } = event.args;
  const pool = event.log.address;
  const timestamp = Number(event.block.timestamp);
  for (const [owner, delta] of transferSides(from, to, value)) {
    if (owner === zeroAddress) {
      await context.db.update(basket, { address: pool }).set((row) => ({ totalSupply: row.totalSupply - delta }));
      continue;
    }
    await context.db
      .insert(basketBalance)
      .values({ basket: pool, owner, balance: delta, updatedAt: timestamp })
      .onConflictDoUpdate((row) => ({ balance: row.balance + delta, updatedAt: timestamp }));
  }
  await logChanges(context, event, transferChanges("basket.balance", pool, from, to, value));
});
