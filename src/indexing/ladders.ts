// Ladder strategies: opened with 1-16 parts, traded per part, parts finished, collected and closed.
import { eq } from "ponder";
import { ponder } from "ponder:registry";
import { ladder, ladderLeg } from "ponder:schema";
import { ladderStrategyAbi } from "../../abis/index.js";
import { amounts, logChanges } from "./activity.js";

ponder.on("LadderStrategy:LadderOpened", async ({ event, context }) => {
  const { id, owner, token, legs, sellFirst, repeat, oneWay, total } = event.args;
  const timestamp = Number(event.block.timestamp);
  await context.db.insert(ladder).values({
    id, owner, token, legs: Number(legs), sellFirst, repeat, oneWay, total,
    state: "open", repeatMask: repeat ? 3 : 0, trades: 0, fees: 0n, collectedToken: 0n, collectedUsdg: 0n, createdAt: timestamp, updatedAt: timestamp,
  });
  // The event carries the count; the parts' lines are read once, at the opening block.
  const parts = await context.client.readContract({ address: event.log.address, abi: ladderStrategyAbi, functionName: "legsOf", args: [id] });
  await context.db.insert(ladderLeg).values(
    parts.map((p, leg) => ({ ladderId: id, leg, buyPriceX18: p.buyPriceX18, sellPriceX18: p.sellPriceX18, amount: p.amount, trades: 0, finished: false })),
  );
  await logChanges(context, event, [{ owner, kind: "ladder.opened", subject: id.toString(), data: amounts({ token, legs, sellFirst, repeat, oneWay, total }) }]);
});

ponder.on("LadderStrategy:LadderTraded", async ({ event, context }) => {
  const { id, owner, leg, buy, amountIn, amountOut, fee } = event.args;
  const timestamp = Number(event.block.timestamp);
  await context.db.update(ladder, { id }).set((l) => ({ trades: l.trades + 1, fees: l.fees + fee, updatedAt: timestamp }));
  await context.db.update(ladderLeg, { ladderId: id, leg: Number(leg) }).set((p) => ({ trades: p.trades + 1 }));
  await logChanges(context, event, [{ owner, kind: "ladder.traded", subject: id.toString(), data: amounts({ part: Number(leg) + 1, buy, amountIn, amountOut, fee }) }]);
});

ponder.on("LadderStrategy:LadderLegFinished", async ({ event, context }) => {
  const { id, owner, leg } = event.args;
  await context.db.update(ladderLeg, { ladderId: id, leg: Number(leg) }).set({ finished: true });
  await logChanges(context, event, [{ owner, kind: "ladder.part.finished", subject: id.toString(), data: { part: Number(leg) + 1 } }]);
});

ponder.on("LadderStrategy:LadderRepeatSet", async ({ event, context }) => {
  const { id, owner, mask } = event.args;
  await context.db.update(ladder, { id }).set({ repeatMask: mask, repeat: mask !== 0, updatedAt: Number(event.block.timestamp) });
  await logChanges(context, event, [{ owner, kind: "ladder.repeat", subject: id.toString(), data: { mask } }]);
});

ponder.on("LadderStrategy:LadderCollected", async ({ event, context }) => {
  const { id, owner, tokenOut, usdgOut } = event.args;
  await context.db.update(ladder, { id }).set((l) => ({ collectedToken: l.collectedToken + tokenOut, collectedUsdg: l.collectedUsdg + usdgOut, updatedAt: Number(event.block.timestamp) }));
  await logChanges(context, event, [{ owner, kind: "ladder.collected", subject: id.toString(), data: amounts({ tokenOut, usdgOut }) }]);
});

ponder.on("LadderStrategy:LadderClosed", async ({ event, context }) => {
  const { id, owner, mask } = event.args;
  await context.db.update(ladder, { id }).set({ state: "closed", updatedAt: Number(event.block.timestamp) });
  await context.db.sql.update(ladderLeg).set({ finished: true }).where(eq(ladderLeg.ladderId, id));
  await logChanges(context, event, [{ owner, kind: "ladder.closed", subject: id.toString(), data: { mask } }]);
});
