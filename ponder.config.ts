// The indexer's sources: every contract of the deployments file on chain 4663, each from the
// deployment block. With no RPC_URL the chain is the devnet.
import { createConfig, factory } from "ponder";
import { getAbiItem, type Address } from "viem";
import * as abis from "./abis/index.js";
import { loadDeployments } from "./adapters/chain/deployments.js";
import { resolve } from "node:path";
import { config, indexerRpc, repoRoot } from "./adapters/config.js";
import { CHAIN_ID } from "./domain/chain.js";

const d = loadDeployments(config.DEPLOYMENTS_FILE);
const c = d.contracts as Record<string, Address>;
const chain = "chain4663" as const;
const startBlock = d.startBlock;
const vaults = (family: string) => d.vaults.filter((v) => v.family === family);
const defined = (xs: (Address | undefined)[]) => xs.filter((x): x is Address => x !== undefined);

const source = <A>(abi: A, address: Address | Address[]) => ({ chain, abi, address, startBlock });
// The contracts users call (src/deployments.ts): with CALL_TRACES=on their successful calls come from the
// RPC's call traces too, and the report card's executed calls are recorded from them (src/call-traces.ts).
const callTraces = config.CALL_TRACES === "on";
const called = <A>(abi: A, address: Address | Address[]) => ({ ...source(abi, address), includeCallTraces: callTraces });

// Postgres, unless a user asks for PGlite with DATABASE_KIND=pglite: an embedded Postgres inside the
// indexer's process (in PGLITE_DIRECTORY, default .ponder/pglite), so the API and the workers cannot read
// it. DATABASE_KIND and PGLITE_DIRECTORY are read here, not in adapters/config.ts, because only the indexer uses them.
const databaseKind = process.env.DATABASE_KIND || "postgres";
if (databaseKind !== "postgres" && databaseKind !== "pglite") {
  throw new Error(`DATABASE_KIND=${JSON.stringify(databaseKind)} must be "postgres" or "pglite"`);
}
const database =
  databaseKind === "pglite"
    ? ({ kind: "pglite", directory: resolve(repoRoot, process.env.PGLITE_DIRECTORY || ".ponder/pglite") } as const)
    : ({
        kind: "postgres",
        connectionString: config.DATABASE_URL,
        ...(config.INDEXER_POOL_MAX === undefined ? {} : { poolConfig: { max: config.INDEXER_POOL_MAX } }),
      } as const);

export default createConfig({
  database,
  chains: { [chain]: { id: CHAIN_ID, rpc: indexerRpc(config), pollingInterval: 100, ethGetLogsBlockRange: 10_000 } },
  contracts: {
    MarketRegistry: source(abis.marketRegistryAbi, c.markets!),
    Pool: {
      chain,
      abi: abis.poolAbi,
      address: factory({ address: c.markets!, event: getAbiItem({ abi: abis.marketRegistryAbi, name: "PoolCreated" }), parameter: "pool" }),
      startBlock,
    },
    SwapRouter: called(abis.swapRouterAbi, c.swapRouter!),
    // The router's and the zap's events confirm users' calls for the report card (src/routers.ts).
    StockVaultRouter: called(abis.stockVaultRouterAbi, c.stockVaultRouter!),
    BasketZap: called(abis.basketZapAbi, c.basketZap!),
    VaultRegistry: source(abis.vaultRegistryAbi, c.vaultRegistry!),
    MergedVault: called(
      abis.mergedVaultAbi,
      vaults("merged").map((v) => v.address),
    ),
    RedeemQueue: called(abis.redeemQueueAbi, defined(vaults("merged").map((v) => v.redeemQueue))),
    UpVault: called(
      abis.upVaultAbi,
      vaults("up").map((v) => v.address),
    ),
    UpDepositQueue: called(abis.upDepositQueueAbi, defined(vaults("up").map((v) => v.depositQueue))),
    UpWithdrawalQueue: called(abis.upWithdrawalQueueAbi, defined(vaults("up").map((v) => v.withdrawalQueue))),
    StockVault: called(
      abis.stockVaultAbi,
      vaults("stock-token").map((v) => v.address),
    ),
    LimitOrderHook: called(abis.limitOrderHookAbi, c.limitOrderHook!),
    GridStrategy: called(abis.gridStrategyAbi, c.gridStrategy!),
    LadderStrategy: called(abis.ladderStrategyAbi, c.ladderStrategy!),
    AgentAccountFactory: source(abis.agentAccountFactoryAbi, c.agentAccountFactory!),
    BasketRegistry: source(abis.basketRegistryAbi, c.basketRegistry!),
    // USDG's EIP-3009 authorizations only (src/payments.ts): its transfers are not indexed.
    Usdg: source(abis.testTokenAbi, c.usdg!),
    BasketMaker: called(abis.basketMakerAbi, c.basketMaker!),
    BasketPool: {
      chain,
      abi: abis.basketPoolAbi,
      address: factory({ address: c.basketMaker!, event: getAbiItem({ abi: abis.basketMakerAbi, name: "BasketMade" }), parameter: "pool" }),
      startBlock,
    },
  },
});
