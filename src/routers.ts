// The events of the contracts that call vaults and pools for a user (the stock-vault router, the basket zap)
// and the vaults' own exit events: they change no projection of their own (the vault's or pool's transfers
// do), but each confirms the call that made it for the report card (domain/bundles/confirmations.ts).
import { ponder } from "ponder:registry";
import { recordExecutedCalls } from "./activity.js";

ponder.on("StockVaultRouter:RouterDeposit", async ({ event, context }) => recordExecutedCalls(context, event));
ponder.on("StockVaultRouter:RouterWithdraw", async ({ event, context }) => recordExecutedCalls(context, event));
ponder.on("BasketZap:ZapBuy", async ({ event, context }) => recordExecutedCalls(context, event));
ponder.on("BasketZap:ZapSell", async ({ event, context }) => recordExecutedCalls(context, event));
ponder.on("MergedVault:Redeemed", async ({ event, context }) => recordExecutedCalls(context, event));
ponder.on("UpVault:Redeemed", async ({ event, context }) => recordExecutedCalls(context, event));
