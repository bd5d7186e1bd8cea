// Vaults of the three families: their status and figures, share positions, queued deposits and
// queued withdrawals. A pair vault's books (its USDG and token) follow every event that moves them
// (deposits settled, burns, rebalances, harvests), so readers can value them at the price now; a
// stock-token vault's assets follow its deposits, withdrawals and harvests.
import { ponder, type Context } from "ponder:registry";
import { depositRequest, token, vault, vaultPosition, vaultSnapshot, withdrawalRequest } from "ponder:schema";
import { type Address, zeroAddress } from "viem";
import { mergedVaultAbi } from "../abis/index.js";
import type { ActivityKind } from "../domain/activity-kinds.js";
import { vaultTotalAssets } from "../domain/vault-figures.js";
import { amounts, logChanges, recordExecutedCalls, transferChanges, transferSides } from "./activity.js";
import { vaultOf } from "./deployments.js";
import { sameAddress } from "../domain/address.js";

const STATUS = ["open", "full", "closed", "paused"] as const;
const FAMILY = ["merged", "up", "stock-token"] as const;

/** The vault's row, created with defaults on its first event (constructor events come before listing). */
async function ensureVault(context: Context, address: Address, timestamp: bigint) {
  const v = vaultOf(address);
  await context.db
    .insert(vault)
    .values({
      address: v.address,
      family: v.family,
      token: v.token,
      agent: v.agent,
      listed: false,
      status: "open",
      reason: "",
      depositCap: 0n,
      minDeposit: 0n,
      feeBps: 0,
      rangeLowerX18: 0n,
      rangeUpperX18: 0n,
      totalAssets: 0n,
      usdgAssets: 0n,
      tokenAssets: 0n,
      booksBlock: 0n,
      totalSupply: 0n,
      pendingAssets: 0n,
      harvestedGross: 0n,
      harvestedFees: 0n,
      updatedAt: Number(timestamp),
    })
    .onConflictDoNothing();
  return v.address;
}

type Books = { usdgAssets: bigint; tokenAssets: bigint; booksBlock: bigint };

/**
 * A pair vault's books as the chain holds them after the event's block. Read at burns and settled
 * deposits, not recomputed from the events: a recomputation of exits drifted a few units in a million
 * from the chain after a day (seen on the e2e devnet, cause not found). Harvests and rebalances carry
 * exact figures and are not read (the hourly harvests were most of the backfill's eth_calls).
 */
async function booksAt(context: Context, address: Address, blockNumber: bigint): Promise<Books> {
  const [usdgAssets, tokenAssets] = await Promise.all([
    context.client.readContract({ address, abi: mergedVaultAbi, functionName: "usdgAssets", blockNumber }),
    context.client.readContract({ address, abi: mergedVaultAbi, functionName: "tokenAssets", blockNumber }),
  ]);
  return { usdgAssets, tokenAssets, booksBlock: blockNumber };
}

/** A pair vault's new books, with totalAssets valued at its token's indexed price now (as the vault would). */
async function setBooks(context: Context, address: Address, books: Books, timestamp: bigint) {
  const row = (await context.db.find(vault, { address }))!;
  const market = await context.db.find(token, { address: row.token });
  const totalAssets = vaultTotalAssets(
    { family: row.family, ...books, totalAssets: 0n },
    { decimals: market?.decimals ?? null, priceX18: market?.priceX18 ?? null },
  );
  await context.db.update(vault, { address }).set({ ...books, totalAssets, updatedAt: Number(timestamp) });
}

ponder.on("VaultRegistry:VaultListed", async ({ event, context }) => {
  const address = await ensureVault(context, event.args.vault, event.block.timestamp);
  await context.db.update(vault, { address }).set({ listed: true, agent: event.args.agent, family: FAMILY[event.args.family] ?? "merged" });
});

for (const family of ["MergedVault", "UpVault", "StockVault"] as const) {
  ponder.on(`${family}:StatusChanged`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    await context.db
      .update(vault, { address })
      .set({ status: STATUS[event.args.status] ?? "open", reason: event.args.reason, updatedAt: Number(event.block.timestamp) });
  });

  ponder.on(`${family}:LimitsChanged`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    await context.db.update(vault, { address }).set({ depositCap: event.args.depositCap, minDeposit: event.args.minDeposit });
  });

  ponder.on(`${family}:FeeChanged`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    await context.db.update(vault, { address }).set({ feeBps: event.args.feeBps });
  });

  // Every harvest is a snapshot of the vault: its history and its earnings.
  ponder.on(`${family}:Harvested`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    const { gross, fee, totalAssets, totalSupply } = event.args;
    const timestamp = Number(event.block.timestamp);
    await context.db.update(vault, { address }).set((row) => ({
      totalAssets,
      totalSupply,
      harvestedGross: row.harvestedGross + gross,
      harvestedFees: row.harvestedFees + fee,
      updatedAt: timestamp,
    }));
    // A pair vault books its income, after the fee, in USDG (PairVault.harvest), unless a read of this
    // block's end state already holds it.
    if (family !== "StockVault") {
      const row = (await context.db.find(vault, { address }))!;
      if (row.booksBlock !== event.block.number) {
        await setBooks(
          context,
          address,
          { usdgAssets: row.usdgAssets + gross - fee, tokenAssets: row.tokenAssets, booksBlock: row.booksBlock },
          event.block.timestamp,
        );
      }
    }
    await context.db
      .insert(vaultSnapshot)
      .values({ vault: address, timestamp, totalAssets, totalSupply, gross, fee })
      .onConflictDoUpdate((row) => ({ totalAssets, totalSupply, gross: row.gross + gross, fee: row.fee + fee }));
  });

  // Share moves: positions, the supply, and a change for each side.
  ponder.on(`${family}:Transfer`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    const { from, to, value } = event.args;
    const timestamp = Number(event.block.timestamp);
    for (const [owner, delta] of transferSides(from, to, value)) {
      if (owner === zeroAddress) {
        const row = (await context.db.find(vault, { address }))!;
        await context.db.update(vault, { address }).set({ totalSupply: row.totalSupply - delta });
        // A pair vault's burn takes the shares' pro-rata USDG and token off its books.
        if (delta > 0n && family !== "StockVault") await setBooks(context, address, await booksAt(context, address, event.block.number), event.block.timestamp);
        continue;
      }
      await context.db
        .insert(vaultPosition)
        .values({ vault: address, owner, shares: delta, updatedAt: timestamp })
        .onConflictDoUpdate((row) => ({ shares: row.shares + delta, updatedAt: timestamp }));
    }
    await logChanges(context, event, transferChanges("vault.shares", address, from, to, value));
  });
}

for (const family of ["MergedVault", "UpVault"] as const) {
  ponder.on(`${family}:Rebalanced`, async ({ event, context }) => {
    const address = await ensureVault(context, event.log.address, event.block.timestamp);
    // The event's post-state: exact here, before whatever follows in the block.
    await setBooks(context, address, { usdgAssets: event.args.usdgAssets, tokenAssets: event.args.tokenAssets, booksBlock: 0n }, event.block.timestamp);
  });
}

// A stock-token vault holds its stock: deposits add to it, withdrawals take from it.
ponder.on("StockVault:Deposit", async ({ event, context }) => {
  const address = await ensureVault(context, event.log.address, event.block.timestamp);
  await context.db.update(vault, { address }).set((row) => ({ totalAssets: row.totalAssets + event.args.assets, updatedAt: Number(event.block.timestamp) }));
});

ponder.on("StockVault:Withdraw", async ({ event, context }) => {
  const address = await ensureVault(context, event.log.address, event.block.timestamp);
  await context.db.update(vault, { address }).set((row) => ({ totalAssets: row.totalAssets - event.args.assets, updatedAt: Number(event.block.timestamp) }));
  await recordExecutedCalls(context, event);
});

ponder.on("MergedVault:RangeChanged", async ({ event, context }) => {
  const address = await ensureVault(context, event.log.address, event.block.timestamp);
  await context.db.update(vault, { address }).set({ rangeLowerX18: event.args.rangeLowerX18, rangeUpperX18: event.args.rangeUpperX18 });
});

ponder.on("UpVault:RangeChanged", async ({ event, context }) => {
  const address = await ensureVault(context, event.log.address, event.block.timestamp);
  await context.db.update(vault, { address }).set({ rangeLowerX18: event.args.rangeLowerX18, rangeUpperX18: event.args.rangeUpperX18 });
});

// ---------------------------------------------------------------- queued deposits

for (const queue of ["MergedVault", "UpDepositQueue"] as const) {
  ponder.on(`${queue}:DepositRequested`, async ({ event, context }) => {
    const v = await ensureVault(context, event.log.address, event.block.timestamp);
    const { id, owner, receiver, assets, minShares } = event.args;
    await context.db.insert(depositRequest).values({ ...pendingRequest(event, v, event.args), assets, minShares, shares: null });
    await context.db.update(vault, { address: v }).set((row) => ({ pendingAssets: row.pendingAssets + assets }));
    await logChanges(context, event, requestChanges(owner, receiver, "vault.deposit.requested", v, amounts({ id, assets, minShares, receiver })));
  });

  ponder.on(`${queue}:DepositSettled`, async ({ event, context }) => {
    const { id, assets, shares } = event.args;
    const row = await closeDeposit(context, event.log.address, id, "settled", event.block.timestamp, shares);
    // Settled USDG joins the pair vault's books (PairVault._mintForDeposit).
    await context.db.update(vault, { address: row.vault }).set((v) => ({ pendingAssets: v.pendingAssets - assets }));
    await setBooks(context, row.vault, await booksAt(context, row.vault, event.block.number), event.block.timestamp);
    await logChanges(context, event, depositChanges(row, "vault.deposit.settled", { id, assets, shares }));
  });

  ponder.on(`${queue}:DepositRefunded`, async ({ event, context }) => {
    const { id, assets } = event.args;
    const row = await closeDeposit(context, event.log.address, id, "refunded", event.block.timestamp);
    await context.db.update(vault, { address: row.vault }).set((v) => ({ pendingAssets: v.pendingAssets - assets }));
    await logChanges(context, event, depositChanges(row, "vault.deposit.refunded", { id, assets }));
  });

  ponder.on(`${queue}:DepositCancelled`, async ({ event, context }) => {
    const { id, assets } = event.args;
    const row = await closeDeposit(context, event.log.address, id, "cancelled", event.block.timestamp);
    await context.db.update(vault, { address: row.vault }).set((v) => ({ pendingAssets: v.pendingAssets - assets }));
    await logChanges(context, event, depositChanges(row, "vault.deposit.cancelled", { id, assets }));
  });
}

type QueueEvent = { log: { address: Address }; block: { timestamp: bigint } };

/** The columns a queue request starts with, deposit or withdrawal: its queue and id, whose it is, pending since now. */
function pendingRequest(event: QueueEvent, vault: Address, args: { id: bigint; owner: Address; receiver: Address }) {
  const timestamp = Number(event.block.timestamp);
  return {
    queue: event.log.address,
    id: args.id,
    vault,
    owner: args.owner,
    receiver: args.receiver,
    state: "pending",
    requestedAt: timestamp,
    updatedAt: timestamp,
  };
}

async function closeDeposit(context: Context, queue: Address, id: bigint, state: string, timestamp: bigint, shares: bigint | null = null) {
  return context.db.update(depositRequest, { queue, id }).set({ state, shares, updatedAt: Number(timestamp) });
}

/** The payer sees its request's outcome; a different receiver sees it too. */
function depositChanges(row: { owner: Address; receiver: Address; vault: Address }, kind: ActivityKind, values: Record<string, bigint>) {
  return requestChanges(row.owner, row.receiver, kind, row.vault, amounts(values));
}

/**
 * A queue entry's change for its owner and, when different, its receiver: both accounts list the
 * entry, and the API's read cache learns whose account changed from these rows (OWNER_TABLES).
 */
function requestChanges<D>(owner: Address, receiver: Address, kind: ActivityKind, vault: Address, data: D) {
  const changes = [{ owner, kind, subject: vault, data }];
  if (!sameAddress(receiver, owner)) changes.push({ owner: receiver, kind, subject: vault, data });
  return changes;
}

// ---------------------------------------------------------------- queued withdrawals

for (const queue of ["RedeemQueue", "UpWithdrawalQueue"] as const) {
  ponder.on(`${queue}:RedeemRequested`, async ({ event, context }) => {
    const v = vaultOf(event.log.address).address;
    const { id, owner, receiver, shares, minAssetsOut } = event.args;
    await context.db.insert(withdrawalRequest).values({ ...pendingRequest(event, v, event.args), shares, minAssetsOut, assets: null });
    await logChanges(context, event, requestChanges(owner, receiver, "vault.withdrawal.requested", v, amounts({ id, shares, minAssetsOut, receiver })));
  });

  ponder.on(`${queue}:RedeemCompleted`, async ({ event, context }) => {
    const { id, shares, assets } = event.args;
    const row = await context.db
      .update(withdrawalRequest, { queue: event.log.address, id })
      .set({ state: "completed", assets, updatedAt: Number(event.block.timestamp) });
    await logChanges(context, event, depositChanges(row, "vault.withdrawal.completed", { id, shares, assets }));
  });

  ponder.on(`${queue}:RedeemCancelled`, async ({ event, context }) => {
    const { id, shares } = event.args;
    const row = await context.db
      .update(withdrawalRequest, { queue: event.log.address, id })
      .set({ state: "cancelled", updatedAt: Number(event.block.timestamp) });
    await logChanges(context, event, depositChanges(row, "vault.withdrawal.cancelled", { id, shares }));
  });
}
