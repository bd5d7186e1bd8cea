// Swaps through the service's swap router.
import { ponder } from "ponder:registry";
import { routerSwap } from "ponder:schema";
import { amounts, logChanges } from "./activity.js";

ponder.on("SwapRouter:Swapped", async ({ event, context }) => {
  const { sender, recipient, tokenIn, tokenOut, amountIn, amountOut, fee } = event.args;
  await context.db.insert(routerSwap).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    sender,
    recipient,
    tokenIn,
    tokenOut,
    amountIn,
    amountOut,
    fee,
    blockNumber: event.block.number,
    timestamp: Number(event.block.timestamp),
    txHash: event.transaction.hash,
  });
  await logChanges(context, event, [
    { owner: recipient, kind: "swap.executed", subject: tokenOut, data: amounts({ tokenIn, tokenOut, amountIn, amountOut, fee }) },
  ]);
});
