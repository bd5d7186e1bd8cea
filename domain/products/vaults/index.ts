// Vaults: deposits into, withdrawals from, and cancels of queued requests at agent vaults of the three
// families (merged, up with its queues, stock-token with its router). The builders are ./deposit.ts,
// ./withdraw.ts, ./cancel-deposit.ts and ./cancel-withdraw.ts; the calls' words are ./calls.ts.
import { mergedVaultAbi, redeemQueueAbi, stockVaultAbi, stockVaultRouterAbi, upDepositQueueAbi, upWithdrawalQueueAbi } from "../../../abis/index.js";
import { lowerHex, notGraded, type GradingRule } from "../../grading/plan.js";
import { approve, defined, fn, wallet, type AllowRule, type PolicyProducts } from "../../policies/rule.js";
import { prepareKind, type Product } from "../product.js";
import { vaultCalls } from "./calls.js";

export * from "./deposit.js";
export * from "./cancel-deposit.js";
export * from "./withdraw.js";
export * from "./cancel-withdraw.js";

const cancelKind = prepareKind({ refusals: ["NOT_AGENT_VAULT", "NOT_YOUR_REQUEST", "REQUEST_NOT_PENDING"], reverts: [] });

/** A queued request's amount (assets in, or shares out): the first argument of every queue's request call. */
const requested = (args: readonly unknown[]) => (typeof args[0] === "bigint" ? args[0] : null);

const queuedDeposit: GradingRule = ({ kind, main, args }) => ({
  rule: "deposit",
  action: "vault deposit (queued)",
  vault: kind === "vault-deposit" ? lowerHex(main!.to) : null,
  queued: true,
  amount: requested(args),
});
const cancel: GradingRule = () => notGraded("cancel", "cancel of a queued request");
const withdraw: GradingRule = ({ kind, main, fn, args }) => {
  if (fn === "redeemInKind" || fn === "redeemEmergencyInKind" || (kind === "stock-vault-withdraw" && fn === "redeem"))
    return notGraded("in-kind", "in-kind withdrawal");
  if (fn === "request" || fn === "requestRedeem") return { rule: "withdraw", action: "queued withdrawal", vault: null, queued: true, amount: requested(args) };
  if (fn === "withdrawUSDG") return { rule: "withdraw", action: "withdrawal in USDG", vault: lowerHex(args[0]), queued: false, amount: null };
  return { rule: "withdraw", action: "withdrawal in USDG", vault: lowerHex(main!.to), queued: false, amount: null };
};

export const vaults = {
  name: "vaults",
  contracts: [{ key: "stockVaultRouter", name: "the stock-vault router", abi: "stockVaultRouterAbi" }],
  kinds: {
    "vault-deposit": prepareKind({
      refusals: ["NOT_AGENT_VAULT", "DEPOSITS_CLOSED", "DEPOSITS_PAUSED", "VAULT_FULL", "CAPACITY", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
      reverts: ["DEPOSITS_CLOSED", "DEPOSITS_PAUSED", "VAULT_FULL", "CAPACITY", "AMOUNT_TOO_SMALL"],
    }),
    "vault-cancel-deposit": cancelKind,
    "vault-withdraw": prepareKind({
      refusals: ["NOT_AGENT_VAULT", "NOTHING_TO_WITHDRAW", "BELOW_QUEUE_MINIMUM", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
      reverts: ["BELOW_QUEUE_MINIMUM", "AMOUNT_TOO_SMALL"],
    }),
    "vault-cancel-withdraw": cancelKind,
  },
  bundles: {
    "vault-deposit": { title: "Vault deposit", grade: queuedDeposit },
    "up-vault-deposit": { title: "Vault deposit", grade: queuedDeposit },
    "stock-vault-deposit": {
      title: "Vault deposit",
      grade: ({ args }) => ({
        rule: "deposit",
        action: "stock-token vault deposit",
        vault: lowerHex((args[0] as { vault: string }).vault),
        queued: false,
        amount: null,
      }),
    },
    "vault-cancel-deposit": { title: "Cancel a vault deposit", grade: cancel },
    "up-vault-cancel": { title: "Cancel a vault request", grade: cancel },
    "vault-withdraw": { title: "Vault withdrawal", grade: withdraw },
    "up-vault-withdraw": { title: "Vault withdrawal", grade: withdraw },
    "stock-vault-withdraw": { title: "Vault withdrawal", grade: withdraw },
    "vault-cancel-withdraw": { title: "Cancel a vault withdrawal", grade: cancel },
  },
  calls: vaultCalls,
  policy: {
    usdgSpenders: ({ merged, up, stock, router }) => [...merged.map((v) => v.address), ...up.map((v) => v.depositQueue), stock.length ? router : undefined],
    rules: (p) => [...mergedVaultRules(p), ...upVaultRules(p), ...stockVaultRules(p)],
  },
} satisfies Product;

function mergedVaultRules({ merged }: PolicyProducts): AllowRule[] {
  const mergedAt = defined(merged.map((v) => v.address));
  return [
    {
      name: "vault-deposit-request",
      description: "Merged vault deposit request, shares to the wallet",
      to: mergedAt,
      functions: [fn(mergedVaultAbi, "requestDeposit")],
      words: [wallet(1, "receiver")],
      notes: [],
    },
    {
      name: "vault-cancel",
      description: "Cancel of the wallet's own queued deposit (merged vault) or queued withdrawal (its redeem queue)",
      to: defined([...mergedAt, ...merged.map((v) => v.redeemQueue)]),
      functions: [fn(mergedVaultAbi, "cancelDeposit"), fn(redeemQueueAbi, "cancel")],
      words: [],
      notes: ["The contract refunds the request's own owner; the id names nothing else."],
    },
    {
      name: "vault-withdraw-usdg",
      description: "Merged vault withdrawal in USDG to the wallet",
      to: mergedAt,
      functions: [fn(mergedVaultAbi, "redeem")],
      words: [wallet(1, "receiver")],
      notes: [],
    },
    {
      name: "vault-withdraw-in-kind",
      description: "Merged vault withdrawal in kind to the wallet",
      to: mergedAt,
      functions: [fn(mergedVaultAbi, "redeemInKind")],
      words: [wallet(1, "receiver")],
      notes: [],
    },
  ];
}

function upVaultRules({ up }: PolicyProducts): AllowRule[] {
  const upPairs = up.filter((v) => v.withdrawalQueue).map((v) => [v.address.toLowerCase(), v.withdrawalQueue!.toLowerCase()] as const);
  return [
    {
      name: "up-share-approve",
      description: "Up vault share approve to its own withdrawal queue",
      to: upPairs.map(([v]) => v),
      functions: [approve],
      words: [],
      pair: { word: 0, param: "spender", pairs: upPairs },
      notes: [],
    },
    {
      name: "up-deposit-request",
      description: "Up vault deposit request, shares to the wallet",
      to: defined(up.map((v) => v.depositQueue)),
      functions: [fn(upDepositQueueAbi, "requestDeposit")],
      words: [wallet(1, "owner")],
      notes: [],
    },
    {
      name: "up-withdrawal-request",
      description: "Up vault withdrawal request, paid to the wallet",
      to: defined(up.map((v) => v.withdrawalQueue)),
      functions: [fn(upWithdrawalQueueAbi, "requestRedeem")],
      words: [wallet(1, "owner")],
      notes: [],
    },
    {
      name: "up-request-cancel",
      description: "Cancel of the wallet's own up vault deposit or withdrawal request",
      to: defined(up.flatMap((v) => [v.depositQueue, v.withdrawalQueue])),
      functions: [fn(upDepositQueueAbi, "cancel")],
      words: [],
      notes: ["Both queues share cancel(uint256); the queue returns what the request holds to its own owner."],
    },
  ];
}

function stockVaultRules({ stock, router }: PolicyProducts): AllowRule[] {
  const rules: AllowRule[] = [];
  if (router) {
    const stockPairs = stock.map((v) => [v.address.toLowerCase(), (v.router ?? router).toLowerCase()] as const);
    rules.push({
      name: "stock-share-approve",
      description: "Stock-token vault share approve to its router",
      to: stockPairs.map(([v]) => v),
      functions: [approve],
      words: [],
      pair: { word: 0, param: "spender", pairs: stockPairs },
      notes: [],
    });
    if (stock.length)
      rules.push({
        name: "stock-withdraw-usdg",
        description: "Stock-token vault withdrawal in USDG to the wallet, through the router",
        to: [router],
        functions: [fn(stockVaultRouterAbi, "withdrawUSDG")],
        words: [wallet(3, "receiver")],
        notes: [],
      });
  }
  rules.push({
    name: "stock-withdraw-in-kind",
    description: "Stock-token vault withdrawal in kind to the wallet, of its own shares",
    to: defined(stock.map((v) => v.address)),
    functions: [fn(stockVaultAbi, "redeem")],
    words: [wallet(1, "receiver"), wallet(2, "owner")],
    notes: [],
  });
  return rules;
}
