// Grid strategies: opened, traded on crossings, repeat switched, profit collected, closed.
import { ponder } from "ponder:registry";
import { grid } from "ponder:schema";
import { amounts, logChanges } from "./activity.js";
import { openedRow } from "./opened.js";

ponder.on("GridStrategy:GridOpened", async ({ event, context }) => {
  const { id, owner, token, buyPriceX18, sellPriceX18, amountUsdg, repeat } = event.args;
  await context.db.insert(grid).values({
    ...openedRow(event, event.args),
    buyPriceX18,
    sellPriceX18,
    amountUsdg,
    repeat,
    usdg: amountUsdg,
    tokens: 0n,
    holdsToken: false,
    costUsdg: 0n,
    trades: 0,
    roundTrips: 0,
    fees: 0n,
    collected: 0n,
  });
  await logChanges(context, event, [
    { owner, kind: "grid.opened", subject: id.toString(), data: amounts({ token, buyPriceX18, sellPriceX18, amountUsdg, repeat }) },
  ]);
});

// A buy spends USDG (fee included) for the token; a sell sells all the token for USDG (fee taken) and
// completes a round trip; without repeat the grid then stops until repeat is set again.
ponder.on("GridStrategy:GridTraded", async ({ event, context }) => {
  const { id, owner, buy, amountIn, amountOut, fee } = event.args;
  await context.db.update(grid, { id }).set((g) => ({
    ...(buy
      ? { usdg: g.usdg - amountIn, tokens: g.tokens + amountOut, costUsdg: amountIn, holdsToken: true }
      : { usdg: g.usdg + amountOut, tokens: g.tokens - amountIn, costUsdg: 0n, holdsToken: false }),
    trades: g.trades + 1,
    roundTrips: buy ? g.roundTrips : g.roundTrips + 1,
    fees: g.fees + fee,
    state: !buy && !g.repeat ? "stopped" : g.state,
    updatedAt: Number(event.block.timestamp),
  }));
  await logChanges(context, event, [{ owner, kind: "grid.traded", subject: id.toString(), data: amounts({ buy, amountIn, amountOut, fee }) }]);
});

ponder.on("GridStrategy:GridRepeatSet", async ({ event, context }) => {
  const { id, owner, repeat } = event.args;
  await context.db
    .update(grid, { id })
    .set((g) => ({ repeat, state: g.state === "stopped" && repeat ? "open" : g.state, updatedAt: Number(event.block.timestamp) }));
  await logChanges(context, event, [{ owner, kind: "grid.repeat", subject: id.toString(), data: { repeat } }]);
});

ponder.on("GridStrategy:GridCollected", async ({ event, context }) => {
  const { id, owner, amountUsdg } = event.args;
  await context.db
    .update(grid, { id })
    .set((g) => ({ usdg: g.usdg - amountUsdg, collected: g.collected + amountUsdg, updatedAt: Number(event.block.timestamp) }));
  await logChanges(context, event, [{ owner, kind: "grid.collected", subject: id.toString(), data: amounts({ amountUsdg }) }]);
});

ponder.on("GridStrategy:GridClosed", async ({ event, context }) => {
  const { id, owner, usdgOut, tokenOut } = event.args;
  await context.db.update(grid, { id }).set({ state: "closed", usdg: 0n, tokens: 0n, costUsdg: 0n, updatedAt: Number(event.block.timestamp) });
  await logChanges(context, event, [{ owner, kind: "grid.closed", subject: id.toString(), data: amounts({ usdgOut, tokenOut }) }]);
});
