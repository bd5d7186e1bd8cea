// Limit orders on the hook: placed, filled (in parts), claimable, claimed and closed.
import { ponder, type Context } from "ponder:registry";
import { limitOrder, market, token } from "ponder:schema";
import type { Address } from "viem";
import { amounts, logChanges } from "./activity.js";
import { openedRow } from "./opened.js";

const CLOSE_REASONS = ["filled", "cancelled", "realized"] as const;

ponder.on("LimitOrderHook:OrderPlaced", async ({ event, context }) => {
  const { id, owner, token, sellToken, amountIn, priceX18, market } = event.args;
  await context.db.insert(limitOrder).values({
    ...openedRow(event, event.args),
    sellToken,
    market,
    amountIn,
    priceX18,
    filledIn: 0n,
    filledOut: 0n,
    commission: 0n,
    remaining: amountIn,
    owed0: 0n,
    owed1: 0n,
    claimed0: 0n,
    claimed1: 0n,
    closeReason: null,
  });
  await logChanges(context, event, [{ owner, kind: "order.placed", subject: id.toString(), data: amounts({ token, sellToken, amountIn, priceX18, market }) }]);
});

ponder.on("LimitOrderHook:OrderFilled", async ({ event, context }) => {
  const { id, owner, amountIn, amountOut, commission, remaining } = event.args;
  await context.db.update(limitOrder, { id }).set((o) => ({
    filledIn: o.filledIn + amountIn,
    filledOut: o.filledOut + amountOut,
    commission: o.commission + commission,
    remaining,
    state: remaining === 0n ? "filled" : "open",
    updatedAt: Number(event.block.timestamp),
  }));
  await logChanges(context, event, [{ owner, kind: "order.filled", subject: id.toString(), data: amounts({ amountIn, amountOut, commission, remaining }) }]);
});

// Running totals of what the owner can claim. A fill credits the output token (its OrderFilled came
// first); a cancel or a realize credits the unfilled input instead: the order then stops, nothing remains.
ponder.on("LimitOrderHook:OrderClaimable", async ({ event, context }) => {
  const { id, owner, owed0, owed1 } = event.args;
  const o = (await context.db.find(limitOrder, { id }))!;
  const inputIs0 = (await usdgIsToken0(context, o.token)) !== o.sellToken;
  const stopped = inputIs0 ? owed0 > o.owed0 : owed1 > o.owed1;
  await context.db
    .update(limitOrder, { id })
    .set({ owed0, owed1, ...(stopped ? { remaining: 0n, state: "claimable" } : {}), updatedAt: Number(event.block.timestamp) });
  await logChanges(context, event, [{ owner, kind: "order.claimable", subject: id.toString(), data: amounts({ owed0, owed1 }) }]);
});

/** Whether USDG is token0 of the token's pool (owed0/owed1 follow the pool's sorted tokens). */
async function usdgIsToken0(context: Context, address: Address): Promise<boolean> {
  const t = await context.db.find(token, { address });
  const m = t?.pool ? await context.db.find(market, { pool: t.pool }) : null;
  if (!m) throw new Error(`order on ${address}, which has no market`);
  return m.quoteIs0;
}

ponder.on("LimitOrderHook:OrderClaimed", async ({ event, context }) => {
  const { id, owner, amount0, amount1 } = event.args;
  await context.db.update(limitOrder, { id }).set((o) => ({
    owed0: o.owed0 - amount0,
    owed1: o.owed1 - amount1,
    claimed0: o.claimed0 + amount0,
    claimed1: o.claimed1 + amount1,
    updatedAt: Number(event.block.timestamp),
  }));
  await logChanges(context, event, [{ owner, kind: "order.claimed", subject: id.toString(), data: amounts({ amount0, amount1 }) }]);
});

ponder.on("LimitOrderHook:OrderClosed", async ({ event, context }) => {
  const { id, owner, reason } = event.args;
  const closeReason = CLOSE_REASONS[reason] ?? "filled";
  await context.db.update(limitOrder, { id }).set({ state: "closed", closeReason, updatedAt: Number(event.block.timestamp) });
  await logChanges(context, event, [{ owner, kind: "order.closed", subject: id.toString(), data: { reason: closeReason } }]);
});
