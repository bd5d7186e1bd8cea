// Vaults: the registry, the stock-vault router and nine vaults (three per family), each seeded by the
// admin so share prices exist, then given a status with a reason: open ones, one full (cap reached),
// one closed, one paused, and one open vault agents may not use. Deterministic: fixed order, no clocks.
import { encodeFunctionData, parseUnits, type Address, type Hex } from "viem";
import { marketMakerAbi, mergedVaultAbi, poolAbi, stockVaultAbi, testTokenAbi, upDepositQueueAbi, upVaultAbi, vaultRegistryAbi } from "../../abis/index.js";
import type { DeployedToken, DeployedVault, VaultFamily } from "../../adapters/chain/deployments.js";
import type { CoreDeployment } from "./core.js";
import type { DeployContext } from "./context.js";

export type VaultDeployment = { vaultRegistry: Address; stockVaultRouter: Address; vaults: DeployedVault[] };

/** VaultAdmin.Status. */
export const VaultStatus = { Open: 0, Full: 1, Closed: 2, Paused: 3 } as const;
export const familyCode: Record<VaultFamily, number> = { merged: 0, up: 1, "stock-token": 2 };
/** The token weight the keeper rebalances pair vaults towards. */
export const TARGET_TOKEN_BPS = 5000n;
/** Shares under which an up vault's withdrawal queue refuses a request (50 shares, 12 decimals). */
export const UP_QUEUE_MINIMUM_SHARES = parseUnits("50", 12);

type Status = keyof typeof VaultStatus;
type VaultSpec = {
  family: VaultFamily;
  symbol: string;
  /** Starting deposit of the admin: USDG for pair vaults, whole stock tokens for stock vaults. */
  seed: string;
  /** Deposit cap and minimum in the same unit as `seed`; a Full vault's cap becomes its total assets. */
  cap: string;
  min: string;
  feeBps: number;
  status: Status;
  reason: string;
  agent: boolean;
  redeemQueue?: boolean;
};

const OPEN = "Accepting deposits";
/** The vaults, deployed in this order. */
const vaultSpecs: VaultSpec[] = [
  { family: "merged", symbol: "WETH", seed: "400000", cap: "2000000", min: "10", feeBps: 1000, status: "Open", reason: OPEN, agent: true, redeemQueue: true },
  { family: "merged", symbol: "WBTC", seed: "300000", cap: "1500000", min: "10", feeBps: 1000, status: "Open", reason: OPEN, agent: true, redeemQueue: true },
  {
    family: "merged",
    symbol: "SOLX",
    seed: "150000",
    cap: "150000",
    min: "10",
    feeBps: 1500,
    status: "Full",
    reason: "Deposit cap reached; withdrawals stay open",
    agent: true,
  },
  { family: "up", symbol: "LINK", seed: "120000", cap: "500000", min: "10", feeBps: 1000, status: "Open", reason: OPEN, agent: true },
  {
    family: "up",
    symbol: "GAS",
    seed: "60000",
    cap: "300000",
    min: "10",
    feeBps: 1000,
    status: "Paused",
    reason: "Deposits paused while the range is re-centred",
    agent: true,
  },
  { family: "up", symbol: "ORCL", seed: "80000", cap: "300000", min: "10", feeBps: 1000, status: "Open", reason: OPEN, agent: false },
  { family: "stock-token", symbol: "tsAAPL", seed: "1500", cap: "10000", min: "0.05", feeBps: 500, status: "Open", reason: OPEN, agent: true },
  {
    family: "stock-token",
    symbol: "tsNVDA",
    seed: "2000",
    cap: "10000",
    min: "0.05",
    feeBps: 500,
    status: "Closed",
    reason: "Closed to new deposits; withdrawals stay open",
    agent: true,
  },
  { family: "stock-token", symbol: "tsSPY", seed: "800", cap: "8000", min: "0.02", feeBps: 500, status: "Open", reason: OPEN, agent: true },
];

const familyName: Record<VaultFamily, string> = { merged: "Merged", up: "Up", "stock-token": "Stock" };
const shareSymbol: Record<VaultFamily, string> = { merged: "mv", up: "up", "stock-token": "sv" };

export async function deployVaults(ctx: DeployContext, core: CoreDeployment): Promise<VaultDeployment> {
  const { admin } = ctx;
  const keeper = core.marketMaker;
  const usdg = core.usdg;
  const tokenOf = (symbol: string): DeployedToken => {
    const t = core.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no devnet token ${symbol}`);
    return t;
  };
  const read = ctx.chain.publicClient;

  const vaultRegistry = await ctx.deploy("VaultRegistry", [admin]);
  const stockVaultRouter = await ctx.deploy("StockVaultRouter", [usdg, core.aggregator, admin]);

  // 1. Contracts and their settings.
  const vaults: (DeployedVault & { spec: VaultSpec; decimals: number })[] = [];
  for (const spec of vaultSpecs) {
    const token = tokenOf(spec.symbol);
    const bare = spec.symbol.replace(/^ts/, "");
    const name = spec.family === "stock-token" ? `Stock Vault ${spec.symbol}` : `${familyName[spec.family]} ${spec.symbol}/USDG`;
    const erc20Name = `${name} Vault`.replace("Vault Vault", "Vault");
    const erc20Symbol = `${shareSymbol[spec.family]}${bare}`;
    const unit = spec.family === "stock-token" ? token.decimals : 6;
    const v: (typeof vaults)[number] = { address: "0x", family: spec.family, name, token: token.address, agent: spec.agent, spec, decimals: unit };

    if (spec.family === "merged") {
      v.address = await ctx.deploy("MergedVault", [erc20Name, erc20Symbol, core.markets, token.address, core.aggregator, keeper, admin]);
      if (spec.redeemQueue) {
        v.redeemQueue = await ctx.deploy("RedeemQueue", [v.address]);
        await ctx.send(v.address, mergedVaultAbi, "setRedeemQueue", [v.redeemQueue]);
      }
    } else if (spec.family === "up") {
      v.address = await ctx.deploy("UpVault", [erc20Name, erc20Symbol, core.markets, token.address, keeper, admin]);
      v.depositQueue = await ctx.deploy("UpDepositQueue", [v.address]);
      v.withdrawalQueue = await ctx.deploy("UpWithdrawalQueue", [v.address, UP_QUEUE_MINIMUM_SHARES]);
      await ctx.send(v.address, upVaultAbi, "setQueues", [v.depositQueue, v.withdrawalQueue]);
    } else {
      v.address = await ctx.deploy("StockVault", [token.address, erc20Name, erc20Symbol, keeper, admin]);
      v.router = stockVaultRouter;
    }
    // Setters common to all families (same selectors on every vault).
    await ctx.send(v.address, mergedVaultAbi, "setLimits", [parseUnits(spec.cap, unit), parseUnits(spec.min, unit)]);
    await ctx.send(v.address, mergedVaultAbi, "setFee", [spec.feeBps]);
    if (spec.family !== "stock-token") {
      const price = await read.readContract({ address: token.pool!, abi: poolAbi, functionName: "priceX18" });
      // Merged vaults provide liquidity around the price, up vaults above it.
      const [lo, hi] = spec.family === "merged" ? [(price * 80n) / 100n, (price * 125n) / 100n] : [(price * 95n) / 100n, (price * 150n) / 100n];
      await ctx.send(v.address, mergedVaultAbi, "setRange", [lo, hi]);
    }
    vaults.push(v);
  }

  // 2. The admin's starting deposits: pair vaults through their queue (settled below), stock vaults directly.
  const seedUsdg = vaults.filter((v) => v.family !== "stock-token").reduce((s, v) => s + parseUnits(v.spec.seed, 6), 0n);
  await ctx.send(usdg, testTokenAbi, "mint", [admin, seedUsdg]);
  const settle: { target: Address; data: Hex }[] = [];
  for (const v of vaults) {
    const amount = parseUnits(v.spec.seed, v.decimals);
    if (v.family === "merged") {
      await ctx.send(usdg, testTokenAbi, "approve", [v.address, amount]);
      await ctx.send(v.address, mergedVaultAbi, "requestDeposit", [amount, admin, 0n]);
      const ids = await read.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "pendingDepositIds" });
      settle.push({ target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "settleDeposits", args: [ids] }) });
    } else if (v.family === "up") {
      await ctx.send(usdg, testTokenAbi, "approve", [v.depositQueue!, amount]);
      await ctx.send(v.depositQueue!, upDepositQueueAbi, "requestDeposit", [amount, admin, 0n]);
      const ids = await read.readContract({ address: v.depositQueue!, abi: upDepositQueueAbi, functionName: "pendingIds" });
      settle.push({ target: v.depositQueue!, data: encodeFunctionData({ abi: upDepositQueueAbi, functionName: "settle", args: [ids] }) });
    } else {
      await ctx.send(v.token, testTokenAbi, "mint", [admin, amount]);
      await ctx.send(v.token, testTokenAbi, "approve", [v.address, amount]);
      await ctx.send(v.address, stockVaultAbi, "deposit", [amount, admin]);
    }
  }
  // The keeper settles them and puts part of each pair vault into its token, in one batch.
  for (const v of vaults) {
    if (v.family === "stock-token") continue;
    settle.push({ target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "rebalance", args: [TARGET_TOKEN_BPS] }) });
  }
  await ctx.send(keeper, marketMakerAbi, "executeBatch", [settle.map((c) => c.target), settle.map((c) => c.data)], ctx.keeper);
  for (const v of vaults) {
    if ((await read.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalSupply" })) === 0n) {
      throw new Error(`vault ${v.name} was not seeded`);
    }
  }

  // 3. Statuses (a Full vault's cap is its total assets now), then the registry listing.
  for (const v of vaults) {
    if (v.spec.status === "Full") {
      const total = await read.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalAssets" });
      await ctx.send(v.address, mergedVaultAbi, "setLimits", [total, parseUnits(v.spec.min, v.decimals)]);
    }
    await ctx.send(v.address, mergedVaultAbi, "setStatus", [VaultStatus[v.spec.status], v.spec.reason]);
  }
  for (const v of vaults) await ctx.send(vaultRegistry, vaultRegistryAbi, "list", [v.address, familyCode[v.family], v.agent]);

  return {
    vaultRegistry,
    stockVaultRouter,
    vaults: vaults.map(({ spec: _spec, decimals: _decimals, ...v }) => v),
  };
}
