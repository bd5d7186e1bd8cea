// Ladder strategies: opened with 1-16 parts, traded per part, parts finished, collected and closed.
import { eq } from "ponder";
import { ponder, type Context } from "ponder:registry";
import { ladder, ladderLeg } from "ponder:schema";
import { ladderStrategyAbi } from "../abis/index.js";
import { amounts, logChanges } from "./activity.js";
import { openedRow } from "./opened.js";

const TOKEN_SIDE = 1;
const USDG_SIDE = 2;

/** `repeat` means the start side re-arms: the token side for a sell-first ladder, USDG for buy-first. */
const repeats = (sellFirst: boolean, mask: number) => (mask & (sellFirst ? TOKEN_SIDE : USDG_SIDE)) !== 0;

ponder.on("LadderStrategy:LadderOpened", async ({ event, context }) => {
  const { id, owner, token, legs, sellFirst, repeat, oneWay, total } = event.args;
  await context.db.insert(ladder).values({
    ...openedRow(event, event.args),
    legs: Number(legs),
    sellFirst,
    repeat,
    oneWay,
    total,
    repeatMask: repeat ? 3 : 0,
    trades: 0,
    fees: 0n,
    collectedToken: 0n,
    collectedUsdg: 0n,
  });
  // The event carries the count; the parts' lines are read once, at the opening block. Each part starts
  // with its stake on its start side.
  const parts = await context.client.readContract({ address: event.log.address, abi: ladderStrategyAbi, functionName: "legsOf", args: [id] });
  await context.db.insert(ladderLeg).values(
    parts.map((p, leg) => ({
      ladderId: id,
      leg,
      buyPriceX18: p.buyPriceX18,
      sellPriceX18: p.sellPriceX18,
      amount: p.amount,
      usdg: sellFirst ? 0n : p.amount,
      tokens: sellFirst ? p.amount : 0n,
      holdsToken: sellFirst,
      trades: 0,
      finished: false,
    })),
  );
  await logChanges(context, event, [
    { owner, kind: "ladder.opened", subject: id.toString(), data: amounts({ token, legs, sellFirst, repeat, oneWay, total }) },
  ]);
});

// A buy spends USDG (fee included) for the token; a sell sells the token for USDG (fee taken).
ponder.on("LadderStrategy:LadderTraded", async ({ event, context }) => {
  const { id, owner, leg, buy, amountIn, amountOut, fee } = event.args;
  const timestamp = Number(event.block.timestamp);
  await context.db.update(ladder, { id }).set((l) => ({ trades: l.trades + 1, fees: l.fees + fee, updatedAt: timestamp }));
  await context.db.update(ladderLeg, { ladderId: id, leg: Number(leg) }).set((p) => ({
    ...(buy
      ? { usdg: p.usdg - amountIn, tokens: p.tokens + amountOut, holdsToken: true }
      : { usdg: p.usdg + amountOut, tokens: p.tokens - amountIn, holdsToken: false }),
    trades: p.trades + 1,
  }));
  await logChanges(context, event, [
    { owner, kind: "ladder.traded", subject: id.toString(), data: amounts({ part: Number(leg) + 1, buy, amountIn, amountOut, fee }) },
  ]);
});

// Once every part has finished, the ladder stops trading (closing finishes the unfinished parts first).
ponder.on("LadderStrategy:LadderLegFinished", async ({ event, context }) => {
  const { id, owner, leg } = event.args;
  await context.db.update(ladderLeg, { ladderId: id, leg: Number(leg) }).set({ finished: true });
  const l = (await context.db.find(ladder, { id }))!;
  if (l.state === "open" && (await partsOf(context, id, l.legs)).every((p) => p.finished)) {
    await context.db.update(ladder, { id }).set({ state: "stopped", updatedAt: Number(event.block.timestamp) });
  }
  await logChanges(context, event, [{ owner, kind: "ladder.part.finished", subject: id.toString(), data: { part: Number(leg) + 1 } }]);
});

ponder.on("LadderStrategy:LadderRepeatSet", async ({ event, context }) => {
  const { id, owner, mask } = event.args;
  await context.db.update(ladder, { id }).set((l) => ({ repeatMask: mask, repeat: repeats(l.sellFirst, mask), updatedAt: Number(event.block.timestamp) }));
  await logChanges(context, event, [{ owner, kind: "ladder.repeat", subject: id.toString(), data: { mask } }]);
});

// The event gives totals; each part gives what it can spare, as the contract computes it: a finished part
// all it holds, a running part on its start side what exceeds its stake of the start asset and all of the
// other asset, a running part mid-trip all of the start asset. A side with a zero total was not collected.
ponder.on("LadderStrategy:LadderCollected", async ({ event, context }) => {
  const { id, owner, tokenOut, usdgOut } = event.args;
  const l = (await context.db.find(ladder, { id }))!;
  for (const p of await partsOf(context, id, l.legs)) {
    const onStart = p.holdsToken === l.sellFirst;
    const over = (held: bigint) => (held > p.amount ? held - p.amount : 0n);
    const [t, u] = p.finished
      ? [p.tokens, p.usdg]
      : l.sellFirst
        ? [onStart ? over(p.tokens) : p.tokens, onStart ? p.usdg : 0n]
        : [onStart ? p.tokens : 0n, onStart ? over(p.usdg) : p.usdg];
    await context.db.update(ladderLeg, { ladderId: id, leg: p.leg }).set({
      tokens: tokenOut > 0n ? p.tokens - t : p.tokens,
      usdg: usdgOut > 0n ? p.usdg - u : p.usdg,
    });
  }
  await context.db
    .update(ladder, { id })
    .set((r) => ({ collectedToken: r.collectedToken + tokenOut, collectedUsdg: r.collectedUsdg + usdgOut, updatedAt: Number(event.block.timestamp) }));
  await logChanges(context, event, [{ owner, kind: "ladder.collected", subject: id.toString(), data: amounts({ tokenOut, usdgOut }) }]);
});

ponder.on("LadderStrategy:LadderClosed", async ({ event, context }) => {
  const { id, owner, mask } = event.args;
  await context.db.update(ladder, { id }).set({ state: "closed", updatedAt: Number(event.block.timestamp) });
  await context.db.sql.update(ladderLeg).set({ finished: true }).where(eq(ladderLeg.ladderId, id));
  await logChanges(context, event, [{ owner, kind: "ladder.closed", subject: id.toString(), data: { mask } }]);
});

async function partsOf(context: Context, ladderId: bigint, legs: number) {
  const parts = await Promise.all(Array.from({ length: legs }, (_, leg) => context.db.find(ladderLeg, { ladderId, leg })));
  return parts.map((p) => p!);
}
