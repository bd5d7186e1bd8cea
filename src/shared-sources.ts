// Written by `npm run build-id -- --write`: the hash of the modules outside src/ that the indexing functions
// run. Ponder hashes the files under src/ into its build id, this one among them, so a change to any of
// these is a new build (a reindex), as a change to src/ is:
//   abis/AgentAccount.ts
//   abis/AgentAccountFactory.ts
//   abis/BasketMaker.ts
//   abis/BasketPool.ts
//   abis/BasketRegistry.ts
//   abis/BasketZap.ts
//   abis/BatchExecutor.ts
//   abis/DevAggregator.ts
//   abis/EntryPoint.ts
//   abis/GridStrategy.ts
//   abis/LadderStrategy.ts
//   abis/LimitOrderHook.ts
//   abis/MarketMaker.ts
//   abis/MarketRegistry.ts
//   abis/MergedVault.ts
//   abis/Multicall3.ts
//   abis/Pool.ts
//   abis/RedeemQueue.ts
//   abis/SmartAccount.ts
//   abis/SmartAccountFactory.ts
//   abis/StockVault.ts
//   abis/StockVaultRouter.ts
//   abis/SwapRouter.ts
//   abis/TestToken.ts
//   abis/UpDepositQueue.ts
//   abis/UpVault.ts
//   abis/UpWithdrawalQueue.ts
//   abis/VaultRegistry.ts
//   abis/WETH9.ts
//   abis/index.ts
//   adapters/chain/token-list.ts
//   config/token-list.json
//   domain/activity-kinds.ts
//   domain/activity-position.ts
//   domain/address.ts
//   domain/batch-calls.ts
//   domain/bundles/confirmations.ts
//   domain/executed-calls.ts
//   domain/price.ts
//   domain/vault-figures.ts
export const SHARED_SOURCES_SHA256 = "fa8aebab5129530c4feb228124dfd39d01b404773236a8a7c9c4f3b02e307905";
