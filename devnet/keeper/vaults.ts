// Vault keeper: settles pending deposit and redemption requests, keeps pair vaults near half token,
// half USDG, and harvests every vault with fee income the MarketMaker pays (USDG for pair vaults, the
// stock token for stock vaults). Harvests are sized from the time since the vault's last one, at a
// plausible yearly rate with some hour-to-hour variation, so the Harvested history reads like fees.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { mergedVaultAbi, redeemQueueAbi, stockVaultAbi, testTokenAbi, upDepositQueueAbi, upVaultAbi, upWithdrawalQueueAbi } from "../../abis/index.js";
import type { DeployedVault } from "../../adapters/chain/deployments.js";
import type { DeployContext } from "../deploy/context.js";
import { TARGET_TOKEN_BPS } from "../deploy/vaults.js";
import { seededRandom } from "../seed/price-paths.js";

export type KeeperCall = { target: Address; data: Hex };

const YEAR = 365n * 86400n;
/** Harvest at most every 10 minutes of chain time (every step of the seeded history). */
export const HARVEST_INTERVAL_SECONDS = 600n;
/** Rebalance a pair vault when its token weight is this far from the target. */
const REBALANCE_BAND_BPS = 500n;
/** Gross yearly fee income by family, in basis points of total assets (before the vault's fee). */
const BASE_APR_BPS = { merged: 1400n, up: 2000n, "stock-token": 700n } as const;

/** The USDG address of each pair vault (read once). */
const usdgOf = new Map<Address, Address>();

/** The keeper's calls due now for `d.vaults`. */
export async function vaultKeeperCalls(ctx: DeployContext, d: { vaults: DeployedVault[] }): Promise<KeeperCall[]> {
  const now = (await ctx.chain.publicClient.getBlock()).timestamp;
  const [settles, harvests] = await Promise.all([settleCalls(ctx, d), harvestCalls(ctx, d, now)]);
  return [...settles, ...harvests];
}

/** Settlements of pending requests and rebalances of pair vaults. */
export async function settleCalls(ctx: DeployContext, d: { vaults: DeployedVault[] }): Promise<KeeperCall[]> {
  const read = ctx.chain.publicClient;
  const perVault = await Promise.all(
    d.vaults.map(async (v): Promise<KeeperCall[]> => {
      const calls: KeeperCall[] = [];
      if (v.family === "merged") {
        const ids = await read.readContract({ address: v.address, abi: mergedVaultAbi, functionName: "pendingDepositIds" });
        if (ids.length) calls.push({ target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "settleDeposits", args: [ids] }) });
        if (v.redeemQueue) {
          const rids = await read.readContract({ address: v.redeemQueue, abi: redeemQueueAbi, functionName: "pendingIds" });
          if (rids.length) calls.push({ target: v.redeemQueue, data: encodeFunctionData({ abi: redeemQueueAbi, functionName: "settle", args: [rids] }) });
        }
      } else if (v.family === "up") {
        if (v.depositQueue) {
          const ids = await read.readContract({ address: v.depositQueue, abi: upDepositQueueAbi, functionName: "pendingIds" });
          if (ids.length) calls.push({ target: v.depositQueue, data: encodeFunctionData({ abi: upDepositQueueAbi, functionName: "settle", args: [ids] }) });
        }
        if (v.withdrawalQueue) {
          const rids = await read.readContract({ address: v.withdrawalQueue, abi: upWithdrawalQueueAbi, functionName: "pendingIds" });
          if (rids.length)
            calls.push({ target: v.withdrawalQueue, data: encodeFunctionData({ abi: upWithdrawalQueueAbi, functionName: "settle", args: [rids] }) });
        }
      }
      if (v.family !== "stock-token") {
        const weight = await read.readContract({ address: v.address, abi: upVaultAbi, functionName: "tokenWeightBps" });
        const off = weight > TARGET_TOKEN_BPS ? weight - TARGET_TOKEN_BPS : TARGET_TOKEN_BPS - weight;
        if (off > REBALANCE_BAND_BPS) {
          calls.push({ target: v.address, data: encodeFunctionData({ abi: upVaultAbi, functionName: "rebalance", args: [TARGET_TOKEN_BPS] }) });
        }
      }
      return calls;
    }),
  );
  return perVault.flat();
}

/** For each vault whose last harvest is at least HARVEST_INTERVAL_SECONDS old at `now`: the
 *  MarketMaker's exact approval of the income to the vault, then `harvest`. */
export async function harvestCalls(ctx: DeployContext, d: { vaults: DeployedVault[] }, now: bigint): Promise<KeeperCall[]> {
  const read = ctx.chain.publicClient;
  const perVault = await Promise.all(
    d.vaults.map(async (v): Promise<KeeperCall[]> => {
      const last = await read.readContract({ address: v.address, abi: stockVaultAbi, functionName: "lastHarvestAt" });
      const elapsed = now - last;
      if (elapsed < HARVEST_INTERVAL_SECONDS) return [];
      const total = await read.readContract({ address: v.address, abi: stockVaultAbi, functionName: "totalAssets" });
      const amount = harvestAmount(v, total, elapsed, last);
      if (amount === 0n) return [];
      const incomeToken = v.family === "stock-token" ? v.token : await pairUsdg(ctx, v.address);
      return [
        { target: incomeToken, data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [v.address, amount] }) },
        { target: v.address, data: encodeFunctionData({ abi: stockVaultAbi, functionName: "harvest", args: [amount] }) },
      ];
    }),
  );
  return perVault.flat();
}

/** Gross yearly rate of a vault in basis points: its family's base, +-3% by vault. */
export function vaultAprBps(v: Pick<DeployedVault, "address" | "family">): bigint {
  return BASE_APR_BPS[v.family] + BigInt(Number(BigInt(v.address) % 601n)) - 300n;
}

/** Income for `elapsed` seconds on `total` assets, varied 50%-150% per harvest (deterministic). */
export function harvestAmount(v: Pick<DeployedVault, "address" | "family">, total: bigint, elapsed: bigint, last: bigint): bigint {
  const random = seededRandom(Number((BigInt(v.address) ^ last) % 4294967296n));
  const variationBps = 5000n + BigInt(Math.floor(random() * 10_000));
  return (total * vaultAprBps(v) * variationBps * elapsed) / (10_000n * 10_000n * YEAR);
}

async function pairUsdg(ctx: DeployContext, vault: Address): Promise<Address> {
  let usdg = usdgOf.get(vault);
  if (!usdg) {
    usdg = await ctx.chain.publicClient.readContract({ address: vault, abi: mergedVaultAbi, functionName: "usdg" });
    usdgOf.set(vault, usdg);
  }
  return usdg;
}
