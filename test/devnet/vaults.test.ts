// Vaults on the devnet: every call the prepare steps name, from a test wallet, with its state change and
// event; keeper settlement through MarketMaker.executeBatch; harvests; and the deposit refusals.
import { beforeAll, describe, expect, it } from "vitest";
import {
  createPublicClient,
  custom,
  encodeFunctionData,
  isAddressEqual,
  parseEventLogs,
  parseUnits,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import {
  devAggregatorAbi,
  marketMakerAbi,
  mergedVaultAbi,
  redeemQueueAbi,
  stockVaultAbi,
  stockVaultRouterAbi,
  testTokenAbi,
  upDepositQueueAbi,
  upVaultAbi,
  upWithdrawalQueueAbi,
  vaultRegistryAbi,
} from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import { deployVaults, UP_QUEUE_MINIMUM_SHARES, VaultStatus, type VaultDeployment } from "../../devnet/deploy/vaults.js";
import { harvestCalls, vaultKeeperCalls } from "../../devnet/keeper/vaults.js";
import type { DeployedVault } from "../../adapters/chain/deployments.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let f: CoreFixture;
let d: VaultDeployment;
/** Reverts are final: no transport retries. */
let noRetry: PublicClient;

const read = () => f.chain.publicClient;
const vault = (name: string): DeployedVault => d.vaults.find((v) => v.name.includes(name))!;
const SHARE = 10n ** 12n;

const balanceOf = (token: Address, owner: Address) => read().readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });

/** Wallet clients and addresses by mnemonic index, derived once (derivation is slow). */
const wallets = new Map<number, ReturnType<CoreFixture["chain"]["walletFor"]>>();
const walletOf = (i: number) => {
  if (!wallets.has(i)) wallets.set(i, f.chain.walletFor(i));
  return wallets.get(i)!;
};
const addressOf = (i: number): Address => walletOf(i).account.address;

/** Sends from wallet `wallet` and returns the receipt's logs (throws on revert). */
async function send(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
  const w = walletOf(wallet);
  const hash = await w.writeContract({ address, abi, functionName, args: args as unknown[], chain: w.chain, account: w.account });
  const receipt = await read().waitForTransactionReceipt({ hash, pollingInterval: 10 });
  expect(receipt.status).toBe("success");
  return receipt.logs;
}

/** Runs keeper calls through MarketMaker.executeBatch from the keeper EOA; no call may fail. */
async function keeper(calls: { target: Address; data: Hex }[]) {
  const logs = await send(11, f.core.marketMaker, marketMakerAbi, "executeBatch", [calls.map((c) => c.target), calls.map((c) => c.data)]);
  expect(parseEventLogs({ abi: marketMakerAbi, logs, eventName: "CallFailed" })).toEqual([]);
  return logs;
}

/** Expects `functionName` from `wallet` to revert with `reason`. */
async function refuses(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[], reason: string) {
  await expect(noRetry.simulateContract({ account: addressOf(wallet), address, abi, functionName, args })).rejects.toThrow(
    new RegExp(`(reason:\\s*|reason string ')${reason}\\b`),
  );
}

const sharePrice = (address: Address) => read().readContract({ address, abi: mergedVaultAbi, functionName: "convertToAssets", args: [SHARE] });

beforeAll(async () => {
  f = await bootCore(["vaults"]);
  noRetry = createPublicClient({ chain: devnetChain, transport: custom(f.chain.provider, { retryCount: 0 }) });
  d = await deployVaults(f.ctx, f.core);
}, 240_000);

describe("vault deployment", () => {
  it("lists nine vaults in three families, one not for agents", async () => {
    const listed = await read().readContract({ address: d.vaultRegistry, abi: vaultRegistryAbi, functionName: "vaults" });
    expect(listed).toEqual(d.vaults.map((v) => v.address));
    expect(d.vaults.map((v) => v.family)).toEqual(["merged", "merged", "merged", "up", "up", "up", "stock-token", "stock-token", "stock-token"]);
    expect(d.vaults.filter((v) => v.redeemQueue)).toHaveLength(2);
    expect(d.vaults.filter((v) => !v.agent)).toHaveLength(1);
    const [family, agent] = await read().readContract({
      address: d.vaultRegistry,
      abi: vaultRegistryAbi,
      functionName: "listings",
      args: [vault("ORCL").address],
    });
    expect([family, agent]).toEqual([1, false]);
  });

  it("gives every vault a share price, a status and a reason; pair vaults hold both assets", async () => {
    const statuses: number[] = [];
    for (const v of d.vaults) {
      expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalSupply" })).toBeGreaterThan(0n);
      statuses.push(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "status" }));
      expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "statusReason" })).not.toBe("");
      expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "keeper" })).toBe(f.core.marketMaker);
      if (v.family !== "stock-token") {
        expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "tokenAssets" })).toBeGreaterThan(0n);
        expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "decimals" })).toBe(12);
      } else {
        expect(await read().readContract({ address: v.address, abi: stockVaultAbi, functionName: "decimals" })).toBe(18);
      }
    }
    for (const s of [VaultStatus.Open, VaultStatus.Full, VaultStatus.Closed, VaultStatus.Paused]) expect(statuses).toContain(s);
    expect(statuses.filter((s) => s === VaultStatus.Open).length).toBeGreaterThanOrEqual(4);
  });
});

describe("merged vault", () => {
  const wallet = 1;
  const me = accountAddress(wallet);

  it("requestDeposit queues USDG; the keeper settles it into shares", async () => {
    const v = vault("Merged WETH");
    const assets = parseUnits("1000", 6);
    await send(wallet, f.core.usdg, testTokenAbi, "approve", [v.address, assets]);
    const usdgBefore = await balanceOf(f.core.usdg, me);
    const logs = await send(wallet, v.address, mergedVaultAbi, "requestDeposit", [assets, me, 1n]);
    const [req] = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "DepositRequested" });
    expect(req!.args).toMatchObject({ owner: me, receiver: me, assets, minShares: 1n });
    expect(await balanceOf(f.core.usdg, me)).toBe(usdgBefore - assets);
    const id = req!.args.id;
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "pendingDepositIds" })).toContain(id);

    const expected = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "convertToShares", args: [assets] });
    const settled = await keeper([{ target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "settleDeposits", args: [[id]] }) }]);
    const [ev] = parseEventLogs({ abi: mergedVaultAbi, logs: settled, eventName: "DepositSettled" });
    expect(ev!.args).toMatchObject({ id, receiver: me, assets, shares: expected });
    const [mint] = parseEventLogs({ abi: mergedVaultAbi, logs: settled, eventName: "Transfer" });
    expect(mint!.args.to).toBe(me);
    expect(await balanceOf(v.address, me)).toBe(expected);
    const entry = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "deposits", args: [id] });
    expect(entry[4]).toBe(2); // Settled
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "pendingDepositIds" })).not.toContain(id);
  });

  it("cancelDeposit refunds the owner; settling refunds a deposit under its minimum shares", async () => {
    const v = vault("Merged WBTC");
    const assets = parseUnits("500", 6);
    await send(wallet, f.core.usdg, testTokenAbi, "approve", [v.address, assets * 2n]);
    const before = await balanceOf(f.core.usdg, me);
    const [req] = parseEventLogs({
      abi: mergedVaultAbi,
      logs: await send(wallet, v.address, mergedVaultAbi, "requestDeposit", [assets, me, 0n]),
      eventName: "DepositRequested",
    });
    await refuses(2, v.address, mergedVaultAbi, "cancelDeposit", [req!.args.id], "NOT_OWNER");
    const [cancelled] = parseEventLogs({
      abi: mergedVaultAbi,
      logs: await send(wallet, v.address, mergedVaultAbi, "cancelDeposit", [req!.args.id]),
      eventName: "DepositCancelled",
    });
    expect(cancelled!.args).toMatchObject({ id: req!.args.id, owner: me, assets });
    expect(await balanceOf(f.core.usdg, me)).toBe(before);

    const [req2] = parseEventLogs({
      abi: mergedVaultAbi,
      logs: await send(wallet, v.address, mergedVaultAbi, "requestDeposit", [assets, me, 10n ** 30n]),
      eventName: "DepositRequested",
    });
    const logs = await keeper([
      { target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "settleDeposits", args: [[req2!.args.id]] }) },
    ]);
    const [refunded] = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "DepositRefunded" });
    expect(refunded!.args).toMatchObject({ id: req2!.args.id, owner: me, assets });
    expect(await balanceOf(f.core.usdg, me)).toBe(before);
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "queuedAssets" })).toBe(0n);
  });

  it("redeem sells the token part through a real aggregator route and pays USDG", async () => {
    const v = vault("Merged WETH");
    const shares = (await balanceOf(v.address, me)) / 4n;
    const [tokenPart, usdgPart] = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
    expect(tokenPart).toBeGreaterThan(0n);
    const quote = await read().readContract({
      address: f.core.aggregator,
      abi: devAggregatorAbi,
      functionName: "quote",
      args: [v.token, f.core.usdg, tokenPart],
    });
    const route = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [v.token, f.core.usdg, tokenPart, quote, v.address] });
    const receiver = addressOf(3);
    const before = await balanceOf(f.core.usdg, receiver);
    const supply = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalSupply" });
    const logs = await send(wallet, v.address, mergedVaultAbi, "redeem", [shares, receiver, usdgPart + quote, route]);
    const [ev] = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "Redeemed" });
    expect(ev!.args).toMatchObject({ owner: me, receiver, shares, usdgOut: usdgPart + quote, tokenOut: 0n });
    expect(await balanceOf(f.core.usdg, receiver)).toBe(before + usdgPart + quote);
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalSupply" })).toBe(supply - shares);
    expect(parseEventLogs({ abi: devAggregatorAbi, logs, eventName: "Routed" })).toHaveLength(1);
  });

  it("redeemInKind pays the token and USDG parts", async () => {
    const v = vault("Merged WETH");
    const shares = (await balanceOf(v.address, me)) / 3n;
    const [tokenPart, usdgPart] = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
    const [tBefore, uBefore, sBefore] = [await balanceOf(v.token, me), await balanceOf(f.core.usdg, me), await balanceOf(v.address, me)];
    const logs = await send(wallet, v.address, mergedVaultAbi, "redeemInKind", [shares, me, tokenPart, usdgPart]);
    const [ev] = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "Redeemed" });
    expect(ev!.args).toMatchObject({ owner: me, receiver: me, shares, usdgOut: usdgPart, tokenOut: tokenPart });
    expect(await balanceOf(v.token, me)).toBe(tBefore + tokenPart);
    expect(await balanceOf(f.core.usdg, me)).toBe(uBefore + usdgPart);
    expect(await balanceOf(v.address, me)).toBe(sBefore - shares);
    await refuses(wallet, v.address, mergedVaultAbi, "redeemInKind", [shares, me, tokenPart * 2n, 0n], "MIN_OUT");
  });

  it("the redeem queue takes approved shares, pays USDG at settlement, and gives shares back on cancel", async () => {
    const v = vault("Merged WETH");
    const queue = v.redeemQueue!;
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "redeemQueue" })).toBe(queue);
    const shares = (await balanceOf(v.address, me)) / 4n;
    await send(wallet, v.address, mergedVaultAbi, "approve", [queue, shares * 2n]);
    const [req] = parseEventLogs({
      abi: redeemQueueAbi,
      logs: await send(wallet, queue, redeemQueueAbi, "request", [shares, me, 1n]),
      eventName: "RedeemRequested",
    });
    expect(req!.args).toMatchObject({ owner: me, receiver: me, shares, minAssetsOut: 1n });
    expect(await balanceOf(v.address, queue)).toBe(shares);
    expect(await read().readContract({ address: queue, abi: redeemQueueAbi, functionName: "pendingIds" })).toEqual([req!.args.id]);

    const expected = await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "previewRedeem", args: [shares] });
    const usdgBefore = await balanceOf(f.core.usdg, me);
    const logs = await keeper([{ target: queue, data: encodeFunctionData({ abi: redeemQueueAbi, functionName: "settle", args: [[req!.args.id]] }) }]);
    const [done] = parseEventLogs({ abi: redeemQueueAbi, logs, eventName: "RedeemCompleted" });
    expect(done!.args).toMatchObject({ id: req!.args.id, receiver: me, shares, assets: expected });
    expect(await balanceOf(f.core.usdg, me)).toBe(usdgBefore + expected);
    expect(await balanceOf(v.address, queue)).toBe(0n);

    const sharesBefore = await balanceOf(v.address, me);
    const [req2] = parseEventLogs({
      abi: redeemQueueAbi,
      logs: await send(wallet, queue, redeemQueueAbi, "request", [shares, me, 0n]),
      eventName: "RedeemRequested",
    });
    const [cancelled] = parseEventLogs({
      abi: redeemQueueAbi,
      logs: await send(wallet, queue, redeemQueueAbi, "cancel", [req2!.args.id]),
      eventName: "RedeemCancelled",
    });
    expect(cancelled!.args).toMatchObject({ id: req2!.args.id, owner: me, shares });
    expect(await balanceOf(v.address, me)).toBe(sharesBefore);
  });

  it("the vault without a redeem queue says so", async () => {
    const zero = await read().readContract({ address: vault("Merged SOLX").address, abi: mergedVaultAbi, functionName: "redeemQueue" });
    expect(/^0x0+$/.test(zero)).toBe(true);
  });
});

describe("up vault", () => {
  const wallet = 4;
  const me = accountAddress(wallet);

  it("deposits through the deposit queue: requestDeposit, settle, cancel", async () => {
    const v = vault("Up LINK");
    const queue = v.depositQueue!;
    const assets = parseUnits("2000", 6);
    await send(wallet, f.core.usdg, testTokenAbi, "approve", [queue, assets * 2n]);
    const [req] = parseEventLogs({
      abi: upDepositQueueAbi,
      logs: await send(wallet, queue, upDepositQueueAbi, "requestDeposit", [assets, me, 1n]),
      eventName: "DepositRequested",
    });
    expect(req!.args).toMatchObject({ owner: me, receiver: me, assets, minShares: 1n });
    expect(await read().readContract({ address: queue, abi: upDepositQueueAbi, functionName: "pendingIds" })).toEqual([req!.args.id]);
    const expected = await read().readContract({ address: v.address, abi: upVaultAbi, functionName: "convertToShares", args: [assets] });
    const logs = await keeper([{ target: queue, data: encodeFunctionData({ abi: upDepositQueueAbi, functionName: "settle", args: [[req!.args.id]] }) }]);
    const [ev] = parseEventLogs({ abi: upDepositQueueAbi, logs, eventName: "DepositSettled" });
    expect(ev!.args).toMatchObject({ id: req!.args.id, receiver: me, assets, shares: expected });
    expect(await balanceOf(v.address, me)).toBe(expected);

    const before = await balanceOf(f.core.usdg, me);
    const [req2] = parseEventLogs({
      abi: upDepositQueueAbi,
      logs: await send(wallet, queue, upDepositQueueAbi, "requestDeposit", [assets, me, 0n]),
      eventName: "DepositRequested",
    });
    const [cancelled] = parseEventLogs({
      abi: upDepositQueueAbi,
      logs: await send(wallet, queue, upDepositQueueAbi, "cancel", [req2!.args.id]),
      eventName: "DepositCancelled",
    });
    expect(cancelled!.args).toMatchObject({ id: req2!.args.id, owner: me, assets });
    expect(await balanceOf(f.core.usdg, me)).toBe(before);
  });

  it("withdraws through the withdrawal queue: approve shares, requestRedeem, settle, cancel; small positions are refused", async () => {
    const v = vault("Up LINK");
    const queue = v.withdrawalQueue!;
    expect(await read().readContract({ address: queue, abi: upWithdrawalQueueAbi, functionName: "minimumShares" })).toBe(UP_QUEUE_MINIMUM_SHARES);
    const shares = (await balanceOf(v.address, me)) / 4n;
    await send(wallet, v.address, upVaultAbi, "approve", [queue, shares * 2n]);
    await refuses(wallet, queue, upWithdrawalQueueAbi, "requestRedeem", [UP_QUEUE_MINIMUM_SHARES - 1n, me, 0n], "BELOW_QUEUE_MINIMUM");
    const [req] = parseEventLogs({
      abi: upWithdrawalQueueAbi,
      logs: await send(wallet, queue, upWithdrawalQueueAbi, "requestRedeem", [shares, me, 1n]),
      eventName: "RedeemRequested",
    });
    expect(req!.args).toMatchObject({ owner: me, receiver: me, shares, minAssetsOut: 1n });

    const expected = await read().readContract({ address: v.address, abi: upVaultAbi, functionName: "previewRedeem", args: [shares] });
    const before = await balanceOf(f.core.usdg, me);
    const logs = await keeper([{ target: queue, data: encodeFunctionData({ abi: upWithdrawalQueueAbi, functionName: "settle", args: [[req!.args.id]] }) }]);
    const [done] = parseEventLogs({ abi: upWithdrawalQueueAbi, logs, eventName: "RedeemCompleted" });
    expect(done!.args).toMatchObject({ id: req!.args.id, receiver: me, shares, assets: expected });
    expect(await balanceOf(f.core.usdg, me)).toBe(before + expected);
    const [redeemed] = parseEventLogs({ abi: upVaultAbi, logs, eventName: "Redeemed" });
    expect(redeemed!.args).toMatchObject({ owner: me, receiver: me, shares, usdgOut: expected });

    // A request the vault can no longer pay its minimum for goes back to the owner at settlement.
    const [req2] = parseEventLogs({
      abi: upWithdrawalQueueAbi,
      logs: await send(wallet, queue, upWithdrawalQueueAbi, "requestRedeem", [shares, me, 10n ** 30n]),
      eventName: "RedeemRequested",
    });
    const logs2 = await keeper([{ target: queue, data: encodeFunctionData({ abi: upWithdrawalQueueAbi, functionName: "settle", args: [[req2!.args.id]] }) }]);
    expect(parseEventLogs({ abi: upWithdrawalQueueAbi, logs: logs2, eventName: "RedeemCancelled" })[0]!.args).toMatchObject({
      id: req2!.args.id,
      owner: me,
      shares,
    });

    const sharesBefore = await balanceOf(v.address, me);
    await send(wallet, v.address, upVaultAbi, "approve", [queue, shares]);
    const [req3] = parseEventLogs({
      abi: upWithdrawalQueueAbi,
      logs: await send(wallet, queue, upWithdrawalQueueAbi, "requestRedeem", [shares, me, 0n]),
      eventName: "RedeemRequested",
    });
    const [cancelled] = parseEventLogs({
      abi: upWithdrawalQueueAbi,
      logs: await send(wallet, queue, upWithdrawalQueueAbi, "cancel", [req3!.args.id]),
      eventName: "RedeemCancelled",
    });
    expect(cancelled!.args).toMatchObject({ id: req3!.args.id, owner: me, shares });
    expect(await balanceOf(v.address, me)).toBe(sharesBefore);
  });

  it("redeemEmergencyInKind pays the receiver named inside the struct", async () => {
    const v = vault("Up LINK");
    const shares = await balanceOf(v.address, me);
    const [tokenPart, usdgPart] = await read().readContract({ address: v.address, abi: upVaultAbi, functionName: "previewRedeemInKind", args: [shares] });
    const receiver = addressOf(5);
    const [tBefore, uBefore] = [await balanceOf(v.token, receiver), await balanceOf(f.core.usdg, receiver)];
    const exit = { shares, receiver, minTokenOut: tokenPart, minUsdgOut: usdgPart };
    const logs = await send(wallet, v.address, upVaultAbi, "redeemEmergencyInKind", [exit]);
    const [ev] = parseEventLogs({ abi: upVaultAbi, logs, eventName: "Redeemed" });
    expect(ev!.args).toMatchObject({ owner: me, receiver, shares, usdgOut: usdgPart, tokenOut: tokenPart });
    expect(await balanceOf(v.token, receiver)).toBe(tBefore + tokenPart);
    expect(await balanceOf(f.core.usdg, receiver)).toBe(uBefore + usdgPart);
    expect(await balanceOf(v.address, me)).toBe(0n);
  });
});

describe("stock-token vault", () => {
  const wallet = 6;
  const me = accountAddress(wallet);

  it("router deposit swaps USDG to the stock through the aggregator leg and deposits for the receiver", async () => {
    const v = vault("tsAAPL");
    const usdgIn = parseUnits("5000", 6);
    const stockOut = await read().readContract({
      address: f.core.aggregator,
      abi: devAggregatorAbi,
      functionName: "quote",
      args: [f.core.usdg, v.token, usdgIn],
    });
    const swapData = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [f.core.usdg, v.token, usdgIn, stockOut, d.stockVaultRouter] });
    const minShares = await read().readContract({ address: v.address, abi: stockVaultAbi, functionName: "previewDeposit", args: [stockOut] });
    await send(wallet, f.core.usdg, testTokenAbi, "approve", [d.stockVaultRouter, usdgIn]);
    const usdgBefore = await balanceOf(f.core.usdg, me);
    const entry = { vault: v.address, usdgIn, minShares, receiver: me, aggregator: f.core.aggregator, swapData };
    await refuses(wallet, d.stockVaultRouter, stockVaultRouterAbi, "deposit", [{ ...entry, aggregator: f.core.swapRouter }], "SWAP_CONTRACTS_CHANGED");
    const logs = await send(wallet, d.stockVaultRouter, stockVaultRouterAbi, "deposit", [entry]);
    const [ev] = parseEventLogs({ abi: stockVaultRouterAbi, logs, eventName: "RouterDeposit" });
    expect(ev!.args).toMatchObject({ vault: v.address, sender: me, receiver: me, usdgIn, shares: minShares });
    expect(await balanceOf(v.address, me)).toBe(minShares);
    expect(await balanceOf(f.core.usdg, me)).toBe(usdgBefore - usdgIn);
    expect(await balanceOf(v.token, d.stockVaultRouter)).toBe(0n);
    expect(await balanceOf(f.core.usdg, d.stockVaultRouter)).toBe(0n);
  });

  it("the vault's redeem pays the stock in kind", async () => {
    const v = vault("tsAAPL");
    const shares = (await balanceOf(v.address, me)) / 2n;
    const assets = await read().readContract({ address: v.address, abi: stockVaultAbi, functionName: "previewRedeem", args: [shares] });
    const before = await balanceOf(v.token, me);
    const logs = await send(wallet, v.address, stockVaultAbi, "redeem", [shares, me, me]);
    const [ev] = parseEventLogs({ abi: stockVaultAbi, logs, eventName: "Withdraw" });
    expect(ev!.args).toMatchObject({ sender: me, receiver: me, owner: me, assets, shares });
    expect(await balanceOf(v.token, me)).toBe(before + assets);
  });

  it("withdrawUSDG takes approved shares, redeems, swaps with the route and pays USDG", async () => {
    const v = vault("tsAAPL");
    const shares = await balanceOf(v.address, me);
    const stockOut = await read().readContract({ address: v.address, abi: stockVaultAbi, functionName: "previewRedeem", args: [shares] });
    const usdgOut = await read().readContract({
      address: f.core.aggregator,
      abi: devAggregatorAbi,
      functionName: "quote",
      args: [v.token, f.core.usdg, stockOut],
    });
    const route = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [v.token, f.core.usdg, stockOut, usdgOut, d.stockVaultRouter] });
    await send(wallet, v.address, stockVaultAbi, "approve", [d.stockVaultRouter, shares]);
    const receiver = addressOf(7);
    const before = await balanceOf(f.core.usdg, receiver);
    const logs = await send(wallet, d.stockVaultRouter, stockVaultRouterAbi, "withdrawUSDG", [v.address, shares, usdgOut, receiver, f.core.aggregator, route]);
    const [ev] = parseEventLogs({ abi: stockVaultRouterAbi, logs, eventName: "RouterWithdraw" });
    expect(ev!.args).toMatchObject({ vault: v.address, sender: me, receiver, shares, usdgOut, tokenOut: 0n });
    expect(await balanceOf(f.core.usdg, receiver)).toBe(before + usdgOut);
    expect(await balanceOf(v.address, me)).toBe(0n);
  });
});

describe("refusals", () => {
  const wallet = 8;
  const me = accountAddress(wallet);
  const big = parseUnits("900000", 6);

  beforeAll(async () => {
    for (const v of d.vaults.filter((x) => x.family !== "stock-token")) {
      await send(wallet, f.core.usdg, testTokenAbi, "approve", [v.depositQueue ?? v.address, big]);
    }
  });

  it("a full vault answers VAULT_FULL", async () => {
    const v = vault("Merged SOLX");
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "status" })).toBe(VaultStatus.Full);
    await refuses(wallet, v.address, mergedVaultAbi, "requestDeposit", [parseUnits("100", 6), me, 0n], "VAULT_FULL");
  });

  it("a paused vault answers DEPOSITS_PAUSED", async () => {
    const v = vault("Up GAS");
    await refuses(wallet, v.depositQueue!, upDepositQueueAbi, "requestDeposit", [parseUnits("100", 6), me, 0n], "DEPOSITS_PAUSED");
  });

  it("a closed vault answers DEPOSITS_CLOSED, through the router too", async () => {
    const v = vault("tsNVDA");
    const usdgIn = parseUnits("1000", 6);
    await send(wallet, f.core.usdg, testTokenAbi, "approve", [d.stockVaultRouter, usdgIn]);
    const out = await read().readContract({ address: f.core.aggregator, abi: devAggregatorAbi, functionName: "quote", args: [f.core.usdg, v.token, usdgIn] });
    const swapData = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [f.core.usdg, v.token, usdgIn, out, d.stockVaultRouter] });
    const entry = { vault: v.address, usdgIn, minShares: 0n, receiver: me, aggregator: f.core.aggregator, swapData };
    await refuses(wallet, d.stockVaultRouter, stockVaultRouterAbi, "deposit", [entry], "DEPOSITS_CLOSED");
    await refuses(wallet, v.address, stockVaultAbi, "deposit", [1n, me], "DEPOSITS_CLOSED");
  });

  it("over the cap answers CAPACITY; under the minimum DEPOSIT_TOO_SMALL", async () => {
    const v = vault("Merged WBTC");
    const [cap, total, queued] = await Promise.all([
      read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "depositCap" }),
      read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "totalAssets" }),
      read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "queuedAssets" }),
    ]);
    const room = cap - total - queued;
    await refuses(wallet, v.address, mergedVaultAbi, "requestDeposit", [room + parseUnits("1000", 6), me, 0n], "CAPACITY");
    await refuses(wallet, v.address, mergedVaultAbi, "requestDeposit", [parseUnits("1", 6), me, 0n], "DEPOSIT_TOO_SMALL");
    await refuses(wallet, vault("Up ORCL").depositQueue!, upDepositQueueAbi, "requestDeposit", [parseUnits("400000", 6), me, 0n], "CAPACITY");
  });

  it("only the keeper settles, harvests and rebalances", async () => {
    const v = vault("Merged WETH");
    await refuses(wallet, v.address, mergedVaultAbi, "settleDeposits", [[1n]], "NOT_KEEPER");
    await refuses(wallet, v.address, mergedVaultAbi, "harvest", [1n], "NOT_KEEPER");
    await refuses(wallet, v.address, mergedVaultAbi, "rebalance", [5000n], "NOT_KEEPER");
    await refuses(wallet, v.redeemQueue!, redeemQueueAbi, "settle", [[1n]], "NOT_KEEPER");
    await refuses(wallet, v.address, mergedVaultAbi, "redeemForQueue", [1n, me, me, 0n], "NOT_QUEUE");
  });
});

describe("keeper", () => {
  it("settles pending requests and harvests every vault; harvests raise share prices and pay the fee", async () => {
    // A pending deposit for the keeper to find.
    const v = vault("Merged WETH");
    const assets = parseUnits("250", 6);
    await send(9, f.core.usdg, testTokenAbi, "approve", [v.address, assets]);
    await send(9, v.address, mergedVaultAbi, "requestDeposit", [assets, addressOf(9), 0n]);

    await f.chain.testClient.increaseTime({ seconds: 3600 });
    await f.chain.testClient.mine({ blocks: 1 });
    const prices = await Promise.all(d.vaults.map((x) => sharePrice(x.address)));
    const adminUsdg = await balanceOf(f.core.usdg, f.ctx.admin);
    const calls = await vaultKeeperCalls(f.ctx, d);
    const logs = await keeper(calls);

    expect(parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "DepositSettled" })).toHaveLength(1);
    expect(await balanceOf(v.address, addressOf(9))).toBeGreaterThan(0n);
    const harvests = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "Harvested" });
    expect(harvests.map((h) => h.address.toLowerCase()).sort()).toEqual(d.vaults.map((x) => x.address.toLowerCase()).sort());
    let fees = 0n;
    for (const h of harvests) {
      const x = d.vaults.find((y) => isAddressEqual(y.address, h.address))!;
      expect(h.args.gross).toBeGreaterThan(0n);
      expect(h.args.totalSupply).toBe(await read().readContract({ address: x.address, abi: mergedVaultAbi, functionName: "totalSupply" }));
      if (x.family !== "stock-token") fees += h.args.fee;
      // An hour of income is about APR / 8760 of the assets: 1% to 50% a year at most here.
      const yearly = (Number(h.args.gross) / Number(h.args.totalAssets)) * 8760;
      expect(yearly).toBeGreaterThan(0.01);
      expect(yearly).toBeLessThan(0.5);
    }
    expect(fees).toBeGreaterThan(0n);
    expect(await balanceOf(f.core.usdg, f.ctx.admin)).toBe(adminUsdg + fees);
    // Stock vaults' share price is in the stock: it can only rise with a harvest.
    for (const [i, x] of d.vaults.entries()) {
      if (x.family === "stock-token") expect(await sharePrice(x.address)).toBeGreaterThan(prices[i]!);
    }
    // No harvest is due right after, and nothing is left to settle.
    expect(await harvestCalls(f.ctx, d, (await read().getBlock()).timestamp)).toEqual([]);
    expect(await read().readContract({ address: v.address, abi: mergedVaultAbi, functionName: "pendingDepositIds" })).toEqual([]);
  });

  it("a harvest raises a pair vault's share price at an unchanged market price", async () => {
    const v = vault("Merged WBTC");
    const before = await sharePrice(v.address);
    const amount = parseUnits("5000", 6);
    const logs = await keeper([
      { target: f.core.usdg, data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [v.address, amount] }) },
      { target: v.address, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "harvest", args: [amount] }) },
    ]);
    const [ev] = parseEventLogs({ abi: mergedVaultAbi, logs, eventName: "Harvested" });
    expect(ev!.args.fee).toBe((amount * 1000n) / 10_000n);
    expect(await sharePrice(v.address)).toBeGreaterThan(before);
  });
});
