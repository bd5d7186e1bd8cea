// Executed calls: every transaction sent to a service contract, with its receipt's status. The report
// card matches its filings against these by owner, target and exact calldata.
import { ponder } from "ponder:registry";
import { executedCall } from "ponder:schema";
import { slice } from "viem";

ponder.on("ServiceContracts:transaction:to", async ({ event, context }) => {
  const { hash, from, to, input } = event.transaction;
  await context.db.insert(executedCall).values({
    txHash: hash,
    from,
    to: to!,
    input,
    selector: input.length >= 10 ? slice(input, 0, 4) : "0x",
    success: event.transactionReceipt?.status === "success",
    blockNumber: event.block.number,
    timestamp: Number(event.block.timestamp),
  });
});
