// The report card's executed calls from the RPC's call traces (CALL_TRACES=on, ponder.config.ts): one handler
// per service function a bundle calls (the confirmation table's, domain/bundles/confirmations.ts), on the
// contract that serves it. Ponder delivers only CALL traces that succeeded, their frames' parents included (a
// call inside a reverted frame carries its error), whose calldata decodes as the function: so a call is
// recorded as the chain ran it, from its real caller, and a reverted inner call records nothing. With traces
// off, Ponder skips these handlers and the events path records (src/activity.ts).
import { type Context, ponder } from "ponder:registry";
import type { Abi, Address, Hex } from "viem";
import * as abis from "../abis/index.js";
import { confirmedCalls } from "../domain/bundles/confirmations.js";
import { tracedCall } from "../domain/executed-calls.js";
import { entryPoints, isServiceContract } from "./deployments.js";
import { storeExecutedCall } from "./executed-call.js";

/** The Ponder contract (ponder.config.ts) of each ABI in the confirmation table. */
const contractOf: Record<string, string> = {
  mergedVaultAbi: "MergedVault",
  upVaultAbi: "UpVault",
  stockVaultAbi: "StockVault",
  upDepositQueueAbi: "UpDepositQueue",
  upWithdrawalQueueAbi: "UpWithdrawalQueue",
  redeemQueueAbi: "RedeemQueue",
  stockVaultRouterAbi: "StockVaultRouter",
  swapRouterAbi: "SwapRouter",
  basketZapAbi: "BasketZap",
  basketMakerAbi: "BasketMaker",
  limitOrderHookAbi: "LimitOrderHook",
  gridStrategyAbi: "GridStrategy",
  ladderStrategyAbi: "LadderStrategy",
};

type TraceEvent = {
  trace: { from: Address; to: Address | null; input: Hex; traceIndex: number };
  transaction: { hash: Hex; from: Address; to: Address | null; transactionIndex: number };
  block: { number: bigint; timestamp: bigint };
};

for (const key of confirmedCalls) {
  const [abiName, fn] = key.split(".") as [keyof typeof abis, string];
  const contract = contractOf[abiName];
  if (!contract) throw new Error(`${key}: no contract of ponder.config.ts serves ${abiName}`);
  // Ponder's name for a function: `name()`, or its signature when the ABI overloads the name.
  const overloads = (abis[abiName] as Abi).filter((x) => x.type === "function" && x.name === fn);
  if (overloads.length !== 1) throw new Error(`${key}: ${overloads.length} functions of the name (one expected)`);
  ponder.on(
    `${contract}.${fn}()` as never,
    (async ({ event, context }: { event: TraceEvent; context: Context }) => {
      const call = tracedCall({ transaction: event.transaction, trace: event.trace, isServiceContract, entryPoints });
      if (!call) return;
      await storeExecutedCall(context, call, event);
    }) as never,
  );
}
