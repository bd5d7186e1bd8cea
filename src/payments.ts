// x402 payments settled in USDG: each EIP-3009 authorization carried out, with the transfer it made.
import { ponder } from "ponder:registry";
import { usdgPayment } from "ponder:schema";
import { decodeFunctionData, isAddressEqual } from "viem";
import { testTokenAbi } from "../abis/index.js";

/** The payee and amount of the call that used the authorization, when the transaction called USDG itself. */
function transferOf(to: `0x${string}` | null, token: `0x${string}`, input: `0x${string}`) {
  if (!to || !isAddressEqual(to, token)) return { payee: null, amount: null };
  try {
    const call = decodeFunctionData({ abi: testTokenAbi, data: input });
    if (call.functionName === "transferWithAuthorization" || call.functionName === "receiveWithAuthorization") {
      return { payee: call.args[1], amount: call.args[2] };
    }
  } catch {
    // not a call of USDG's ABI
  }
  return { payee: null, amount: null };
}

ponder.on("Usdg:AuthorizationUsed", async ({ event, context }) => {
  const { authorizer, nonce } = event.args;
  await context.db.insert(usdgPayment).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    payer: authorizer,
    nonce,
    ...transferOf(event.transaction.to, event.log.address, event.transaction.input),
    sender: event.transaction.from,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: Number(event.block.timestamp),
  });
});
