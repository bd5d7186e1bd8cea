// The columns an order, grid or ladder row starts with when it opens: its id, owner and token, open since the
// block that opened it (createdAt and updatedAt both that block's time).
import type { Address } from "viem";

export function openedRow(event: { block: { timestamp: bigint } }, args: { id: bigint; owner: Address; token: Address }) {
  const timestamp = Number(event.block.timestamp);
  return { id: args.id, owner: args.owner, token: args.token, state: "open", createdAt: timestamp, updatedAt: timestamp };
}
