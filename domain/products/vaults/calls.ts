// The vaults' calls (merged, up and stock-token families, with their queues and router): what each pulls
// from the caller and how the sign page says it.
import type { Address } from "viem";
import { addr, big, field } from "../../bundles/call.js";
import { asAddress, groupDigits, lower, type DescribeNames, type Words } from "../../bundles/words.js";
import type { Calls } from "../product.js";

export const vaultCalls = {
  "mergedVaultAbi.requestDeposit": {
    spend: (a) => ({ amount: big(a[0]), token: "usdg" }),
    words: ([assets, receiver, minShares], to, w, n) => ({
      action: "Deposit",
      summary: `Deposit ${w.amount(big(assets), n.usdg)} into ${w.contract(to)}`,
      details: [`At least ${shares(big(minShares), to, w)}, to ${w.who(receiver)}.`, "The deposit waits in the vault's queue until its keeper settles it."],
    }),
  },
  "mergedVaultAbi.cancelDeposit": {
    words: ([id], to, w) => ({
      action: "Cancel deposit",
      summary: `Cancel deposit request #${big(id)} in ${w.contract(to)}`,
      details: ["The request's USDG comes back to the wallet that made it."],
    }),
  },
  "mergedVaultAbi.redeem": {
    words: ([amount, receiver, minUsdgOut], to, w, n) => ({
      action: "Withdraw",
      summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in USDG`,
      details: [`At least ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
    }),
  },
  "mergedVaultAbi.redeemInKind": {
    words: ([amount, receiver, minTokenOut, minUsdgOut], to, w, n) => ({
      action: "Withdraw in kind",
      summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in kind`,
      details: [`At least ${inKindOut(big(minTokenOut), to, w, n)} and ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
    }),
  },
  "redeemQueueAbi.request": {
    spend: (a) => ({ amount: big(a[0]), token: undefined }),
    words: ([amount, receiver, minAssetsOut], to, w, n) => ({
      action: "Queue withdrawal",
      summary: `Queue a withdrawal of ${shares(big(amount), vaultOf(to, n), w)} at ${w.contract(to)}`,
      details: [`At least ${w.amount(big(minAssetsOut), n.usdg)} when it is settled, to ${w.who(receiver)}.`],
    }),
  },
  "redeemQueueAbi.cancel": {
    words: ([id], to, w) => ({
      action: "Cancel withdrawal",
      summary: `Cancel queued withdrawal #${big(id)} at ${w.contract(to)}`,
      details: ["The queued shares come back to the wallet that queued them."],
    }),
  },
  "upDepositQueueAbi.requestDeposit": {
    spend: (a) => ({ amount: big(a[0]), token: "usdg" }),
    words: ([assets, owner, minimumSharesOut], to, w, n) => ({
      action: "Deposit",
      summary: `Deposit ${w.amount(big(assets), n.usdg)} into ${w.contract(vaultOf(to, n))} through ${w.contract(to)}`,
      details: [
        `At least ${shares(big(minimumSharesOut), vaultOf(to, n), w)}, to ${w.who(owner)}.`,
        "The deposit waits in the queue until its keeper settles it.",
      ],
    }),
  },
  "upDepositQueueAbi.cancel": {
    words: ([id], to, w) => ({
      action: "Cancel deposit",
      summary: `Cancel deposit request #${big(id)} at ${w.contract(to)}`,
      details: ["The request's USDG comes back to the wallet that made it."],
    }),
  },
  "upWithdrawalQueueAbi.requestRedeem": {
    spend: (a) => ({ amount: big(a[0]), token: undefined }),
    words: ([amount, owner, minimumAssetsOut], to, w, n) => ({
      action: "Queue withdrawal",
      summary: `Queue a withdrawal of ${shares(big(amount), vaultOf(to, n), w)} at ${w.contract(to)}`,
      details: [`At least ${w.amount(big(minimumAssetsOut), n.usdg)} when it is settled, to ${w.who(owner)}.`],
    }),
  },
  "upWithdrawalQueueAbi.cancel": {
    words: ([id], to, w) => ({
      action: "Cancel withdrawal",
      summary: `Cancel queued withdrawal #${big(id)} at ${w.contract(to)}`,
      details: ["The queued shares come back to the wallet that queued them."],
    }),
  },
  "upVaultAbi.redeemEmergencyInKind": {
    words: ([exit], to, w, n) => ({
      action: "Withdraw in kind",
      summary: `Withdraw ${shares(big(field(exit, "shares")), to, w)} from ${w.contract(to)} in kind`,
      details: [
        `At least ${inKindOut(big(field(exit, "minTokenOut")), to, w, n)} and ${w.amount(big(field(exit, "minUsdgOut")), n.usdg)}, to ${w.who(field(exit, "receiver"))}.`,
      ],
    }),
  },
  "stockVaultRouterAbi.deposit": {
    spend: (a) => ({ amount: big(field(a[0], "usdgIn")), token: "usdg" }),
    words: ([entry], to, w, n) => ({
      action: "Deposit",
      summary: `Deposit ${w.amount(big(field(entry, "usdgIn")), n.usdg)} into ${w.contract(field(entry, "vault"))} through ${w.contract(to)}`,
      details: [`At least ${shares(big(field(entry, "minShares")), asAddress(field(entry, "vault")) ?? to, w)}, to ${w.who(field(entry, "receiver"))}.`],
    }),
  },
  "stockVaultRouterAbi.withdrawUSDG": {
    spend: (a) => ({ amount: big(a[1]), token: addr(a[0]) }),
    words: ([vault, amount, minUsdgOut, receiver], to, w, n) => ({
      action: "Withdraw",
      summary: `Withdraw ${shares(big(amount), asAddress(vault) ?? to, w)} from ${w.contract(vault)} in USDG, through ${w.contract(to)}`,
      details: [`At least ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
    }),
  },
  "stockVaultAbi.redeem": {
    words: ([amount, receiver, owner], to, w, n) => ({
      action: "Withdraw in kind",
      summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in kind`,
      details: [`The ${w.symbolOf(n.contracts[lower(to)]?.token)} goes to ${w.who(receiver)}; the shares are taken from ${w.who(owner)}.`],
    }),
  },
} satisfies Calls;

/** The vault a call on `to` is about: a vault itself, or the vault of its queue or router. */
const vaultOf = (to: Address, names: DescribeNames): Address => names.contracts[lower(to)]?.vault ?? to;
const shares = (value: bigint, vault: Address, w: Words) => (w.token(vault) ? w.amount(value, vault) : `${groupDigits(value.toString())} base units of shares`);

function inKindOut(value: bigint, vault: Address, w: Words, n: DescribeNames): string {
  const token = n.contracts[lower(vault)]?.token;
  return token ? w.amount(value, token) : `${groupDigits(value.toString())} base units of the vault's token`;
}
