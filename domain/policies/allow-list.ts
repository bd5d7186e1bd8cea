// The spec's wallet-policy allow-list as data: each rule names the contracts a transaction may go to, the
// function it may call, and the calldata words that must be the wallet or a given spender. The provider
// documents (privy.ts, turnkey.ts) write these rules in each provider's policy language. Pure.
//
// Every rule also needs chain id 4663 and a value of 0 (added by the writers). Calldata is read by
// position: word i of the arguments is data[4 + 32 i .. 4 + 32 (i + 1)]; an address is its last 20 bytes.
// Addresses in the rules are lowercase (the document's `contracts` and `wallet` are checksummed). Rules cover exactly the spec's list: stock-token vault deposits and the up
// vault's in-kind exit name the receiver inside a struct, and are left to the sign link; so are the
// actions the list does not name (swaps, ladder strategies, basket make, agent-account calls, and
// merged-vault withdrawals through the redeem queue).
import { CHAIN_ID } from "../chain.js";
import { getAddress, toFunctionSelector, type Abi, type AbiFunction, type Address } from "viem";
import {
  basketZapAbi,
  gridStrategyAbi,
  limitOrderHookAbi,
  mergedVaultAbi,
  redeemQueueAbi,
  stockVaultAbi,
  stockVaultRouterAbi,
  testTokenAbi,
  upDepositQueueAbi,
  upWithdrawalQueueAbi,
} from "../../abis/index.js";

export const POLICY_CHAIN_ID = CHAIN_ID;
export const WALLET_PLACEHOLDER = "{{WALLET_ADDRESS}}";

/** The deployment facts the documents need (a subset of adapters/chain/deployments.ts's Deployments). */
export type PolicyDeployments = {
  contracts: Record<string, string | undefined>;
  vaults: readonly {
    address: string;
    family: "merged" | "up" | "stock-token";
    agent: boolean;
    depositQueue?: string;
    withdrawalQueue?: string;
    redeemQueue?: string;
    router?: string;
  }[];
};

/** A function the rule allows, with its ABI item (for the provider that decodes calldata by ABI). */
export type AllowedFunction = { selector: `0x${string}`; signature: string; item: AbiFunction };

/** A calldata word (by argument position) that must hold an address. */
export type WordCheck = { word: number; param: string; equals: "wallet" | readonly string[] };

/** Pairs of (target, address at a word): the share approvals, where each vault's shares go to its own queue or router. */
export type PairCheck = { word: number; param: string; pairs: readonly (readonly [string, string])[] };

export type AllowRule = {
  name: string;
  description: string;
  /** Lowercase targets; null means any contract (token approvals, where the spender is what matters). */
  to: readonly string[] | null;
  functions: readonly AllowedFunction[];
  words: readonly WordCheck[];
  pair?: PairCheck;
  notes: string[];
};

const fn = (abi: Abi, name: string, inputs?: number): AllowedFunction => {
  const item = abi.find((x): x is AbiFunction => x.type === "function" && x.name === name && (inputs === undefined || x.inputs.length === inputs));
  if (!item) throw new Error(`no function ${name}`);
  const selector = toFunctionSelector(item);
  return { selector, signature: `${name}(${item.inputs.map((i) => i.type).join(",")})`, item };
};
const lower = (a: string | undefined): string | undefined => a?.toLowerCase();
const defined = (xs: (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => typeof x === "string").map((x) => x.toLowerCase()))];

const approve = fn(testTokenAbi, "approve");

/** The agent vaults by family, and the lowercase addresses of the other contracts the rules name. */
type Products = {
  merged: PolicyDeployments["vaults"];
  up: PolicyDeployments["vaults"];
  stock: PolicyDeployments["vaults"];
  usdg?: string;
  hook?: string;
  grid?: string;
  zap?: string;
  router?: string;
};

const spender = (equals: readonly string[]): WordCheck => ({ word: 0, param: "spender", equals });
const wallet = (word: number, param: string): WordCheck => ({ word, param, equals: "wallet" });
/** A rule with nothing to allow (no target, an empty address list, no pair) is left out. */
const allowsSomething = (rule: AllowRule): boolean =>
  !(rule.to !== null && rule.to.length === 0) &&
  !rule.words.some((w) => w.equals !== "wallet" && w.equals.length === 0) &&
  !(rule.pair && rule.pair.pairs.length === 0);

function approvalRules({ merged, up, stock, usdg, hook, grid, zap, router }: Products): AllowRule[] {
  const rules: AllowRule[] = [];
  if (usdg) {
    const spenders = defined([...merged.map((v) => v.address), ...up.map((v) => v.depositQueue), stock.length ? router : undefined, grid]);
    rules.push({
      name: "usdg-approve",
      description: "USDG approve to the agent vaults, queues, routers and grid strategy",
      to: [usdg],
      functions: [approve],
      words: [spender(spenders)],
      notes: ["Approvals are exact amounts in every bundle; the policy bounds the spender, not the amount."],
    });
  }
  if (hook)
    rules.push({
      name: "token-approve-limit-order-hook",
      description: "Token approve to the limit-order hook",
      to: null,
      functions: [approve],
      words: [spender([hook])],
      notes: ["Any token may be approved, only to the hook."],
    });
  if (zap)
    rules.push({
      name: "token-approve-basket-zap",
      description: "Token approve to the basket zap",
      to: null,
      functions: [approve],
      words: [spender([zap])],
      notes: ["Any token may be approved, only to the zap."],
    });
  return rules;
}

function mergedVaultRules({ merged }: Products): AllowRule[] {
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

function upVaultRules({ up }: Products): AllowRule[] {
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

function stockVaultRules({ stock, router }: Products): AllowRule[] {
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

function basketRules({ zap }: Products): AllowRule[] {
  if (!zap) return [];
  return [
    {
      name: "basket-buy",
      description: "Basket buy through the zap, basket tokens to the wallet",
      to: [zap],
      functions: [fn(basketZapAbi, "buy")],
      words: [wallet(5, "recipient")],
      notes: ["The deadline and the legs are the zap's to check."],
    },
    {
      name: "basket-sell",
      description: "Basket sell through the zap, paid to the wallet",
      to: [zap],
      functions: [fn(basketZapAbi, "sell")],
      words: [wallet(5, "recipient")],
      notes: [],
    },
  ];
}

function limitOrderRules({ hook }: Products): AllowRule[] {
  if (!hook) return [];
  return [
    {
      name: "limit-order-create",
      description: "Limit-order create (limit and market orders); the order belongs to the caller",
      to: [hook],
      functions: [fn(limitOrderHookAbi, "create"), fn(limitOrderHookAbi, "createMarketOrder")],
      words: [],
      notes: ["The hook records the sender as the order's owner and pays only it."],
    },
    { name: "limit-order-cancel", description: "Limit-order cancel", to: [hook], functions: [fn(limitOrderHookAbi, "cancel")], words: [], notes: [] },
    {
      name: "limit-order-claim",
      description: "Limit-order claim",
      to: [hook],
      functions: [fn(limitOrderHookAbi, "claim0"), fn(limitOrderHookAbi, "claim1"), fn(limitOrderHookAbi, "claimBoth")],
      words: [],
      notes: [],
    },
    { name: "limit-order-realize", description: "Limit-order realize", to: [hook], functions: [fn(limitOrderHookAbi, "realize")], words: [], notes: [] },
  ];
}

function gridRules({ grid }: Products): AllowRule[] {
  if (!grid) return [];
  return [
    {
      name: "grid-open",
      description: "Grid open (also with a market buy); the grid belongs to the caller",
      to: [grid],
      functions: [fn(gridStrategyAbi, "open"), fn(gridStrategyAbi, "openWithMarket")],
      words: [],
      notes: ["The strategy records the sender as the grid's owner and pays only it."],
    },
    { name: "grid-close", description: "Grid close", to: [grid], functions: [fn(gridStrategyAbi, "close")], words: [], notes: [] },
    { name: "grid-set-repeat", description: "Grid set repeat", to: [grid], functions: [fn(gridStrategyAbi, "setRepeat")], words: [], notes: [] },
    { name: "grid-collect", description: "Grid collect", to: [grid], functions: [fn(gridStrategyAbi, "collect")], words: [], notes: [] },
  ];
}

/** The allow-list for these deployments: only agent vaults; rules with no contract deployed are left out. */
export function allowRules(d: PolicyDeployments): AllowRule[] {
  const c = d.contracts;
  const agent = d.vaults.filter((v) => v.agent);
  const products: Products = {
    merged: agent.filter((v) => v.family === "merged"),
    up: agent.filter((v) => v.family === "up"),
    stock: agent.filter((v) => v.family === "stock-token"),
    usdg: lower(c.usdg),
    hook: lower(c.limitOrderHook),
    grid: lower(c.gridStrategy),
    zap: lower(c.basketZap),
    router: lower(c.stockVaultRouter),
  };
  const byProduct = [approvalRules, mergedVaultRules, upVaultRules, stockVaultRules, basketRules, limitOrderRules, gridRules];
  return byProduct.flatMap((rules) => rules(products)).filter(allowsSomething);
}

/**
 * The contracts a document lists (spec: vaults, queues, routers, hook, grid strategy, basket zap and USDG),
 * checksummed as every answer gives addresses; only the conditions keep them lowercase.
 */
export function policyContracts(d: PolicyDeployments): Record<string, unknown> {
  const agent = d.vaults.filter((v) => v.agent);
  const c = (a: string | undefined) => (a ? getAddress(a) : null);
  return {
    usdg: c(d.contracts.usdg),
    limitOrderHook: c(d.contracts.limitOrderHook),
    gridStrategy: c(d.contracts.gridStrategy),
    basketZap: c(d.contracts.basketZap),
    stockVaultRouter: c(d.contracts.stockVaultRouter),
    vaults: agent.map((v) => ({
      address: getAddress(v.address),
      family: v.family,
      ...(v.depositQueue ? { depositQueue: getAddress(v.depositQueue) } : {}),
      ...(v.withdrawalQueue ? { withdrawalQueue: getAddress(v.withdrawalQueue) } : {}),
      ...(v.redeemQueue ? { redeemQueue: getAddress(v.redeemQueue) } : {}),
      ...(v.router ? { router: getAddress(v.router) } : {}),
    })),
  };
}

/** The spec's notes, shared by both documents. */
export const POLICY_NOTES = [
  `Every rule needs chain id ${CHAIN_ID} and a transaction value of zero.`,
  "Calldata is sliced by position and addresses in the conditions are lowercase (the document's `contracts` and `wallet` are checksummed).",
  "Stock-token vault deposits and the up vault's in-kind exit name the receiver inside a struct, so the rules do not allow them: sign those with the sign link.",
  "Swaps, ladder strategies, basket make, agent-account calls and merged-vault withdrawals through the redeem queue are not on the allow-list: sign those with the sign link.",
  "The policies list the addresses that are current: fetch them again when GET /v1/agent/products changes.",
  "Give the agent its own non-root signer; never give an agent a root key.",
];

export type PolicyDocument = {
  provider: "privy" | "turnkey";
  chainId: number;
  wallet: string | null;
  placeholders: Record<string, string>;
  contracts: Record<string, unknown>;
  policies: { policyName: string; effect: string; consensus: string | null; condition: unknown; notes: string[] }[];
  notes: string[];
};

/** The wallet as the conditions hold it (lowercase, as the providers compare it), or null. */
export function normalizeWallet(wallet: string | undefined): Address | null {
  return wallet ? (wallet.toLowerCase() as Address) : null;
}

/** The wallet as the document's `wallet` field gives it: checksummed, or null. */
export const documentWallet = (wallet: Address | null): Address | null => (wallet ? getAddress(wallet) : null);

/** What a provider writes of its document: its placeholders, its policies from the rules, and its notes. */
export type DocumentParts = Pick<PolicyDocument, "placeholders" | "policies" | "notes">;

/** A provider's document: the frame both share (chain, wallet, contracts), around the parts the provider writes. */
export function policyDocument(
  provider: PolicyDocument["provider"],
  d: PolicyDeployments,
  walletInput: string | undefined,
  write: (rules: AllowRule[], wallet: Address | null) => DocumentParts,
): PolicyDocument {
  const wallet = normalizeWallet(walletInput);
  const { placeholders, policies, notes } = write(allowRules(d), wallet);
  return { provider, chainId: POLICY_CHAIN_ID, wallet: documentWallet(wallet), placeholders, contracts: policyContracts(d), policies, notes };
}
