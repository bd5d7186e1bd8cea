// The spec's wallet-policy allow-list as data: each rule names the contracts a transaction may go to, the
// function it may call, and the calldata words that must be the wallet or a given spender (./rule.ts). Each
// product writes the rules of its calls (domain/products/<product>/index.ts); the provider documents
// (privy.ts, turnkey.ts) write them in each provider's policy language. Pure.
//
// Every rule also needs chain id 4663 and a value of 0 (added by the writers). Calldata is read by
// position: word i of the arguments is data[4 + 32 i .. 4 + 32 (i + 1)]; an address is its last 20 bytes.
// Addresses in the rules are lowercase (the document's `contracts` and `wallet` are checksummed). Rules cover exactly the spec's list: stock-token vault deposits and the up
// vault's in-kind exit name the receiver inside a struct, and are left to the sign link; so are the
// actions the list does not name (swaps, ladder strategies, basket make, agent-account calls, and
// merged-vault withdrawals through the redeem queue).
import { getAddress, type Address } from "viem";
import { CHAIN_ID } from "../chain.js";
import { products } from "../products/index.js";
import { approve, defined, lower, spender, type AllowRule, type PolicyDeployments, type PolicyProducts } from "./rule.js";

export type { AllowedFunction, AllowRule, PairCheck, PolicyDeployments, WordCheck } from "./rule.js";

export const POLICY_CHAIN_ID = CHAIN_ID;
export const WALLET_PLACEHOLDER = "{{WALLET_ADDRESS}}";

/** A rule with nothing to allow (no target, an empty address list, no pair) is left out. */
const allowsSomething = (rule: AllowRule): boolean =>
  !(rule.to !== null && rule.to.length === 0) &&
  !rule.words.some((w) => w.equals !== "wallet" && w.equals.length === 0) &&
  !(rule.pair && rule.pair.pairs.length === 0);

/** The allow-list for these deployments: only agent vaults; rules with no contract deployed are left out. */
export function allowRules(d: PolicyDeployments): AllowRule[] {
  const c = d.contracts;
  const agent = d.vaults.filter((v) => v.agent);
  const deployed: PolicyProducts = {
    merged: agent.filter((v) => v.family === "merged"),
    up: agent.filter((v) => v.family === "up"),
    stock: agent.filter((v) => v.family === "stock-token"),
    usdg: lower(c.usdg),
    hook: lower(c.limitOrderHook),
    grid: lower(c.gridStrategy),
    zap: lower(c.basketZap),
    router: lower(c.stockVaultRouter),
  };
  const policies = products.flatMap((p) => (p.policy ? [p.policy] : []));
  const rules: AllowRule[] = [];
  if (deployed.usdg)
    rules.push({
      name: "usdg-approve",
      description: "USDG approve to the agent vaults, queues, routers and grid strategy",
      to: [deployed.usdg],
      functions: [approve],
      words: [spender(defined(policies.flatMap((p) => p.usdgSpenders?.(deployed) ?? [])))],
      notes: ["Approvals are exact amounts in every bundle; the policy bounds the spender, not the amount."],
    });
  rules.push(...policies.flatMap((p) => p.approvals?.(deployed) ?? []), ...policies.flatMap((p) => p.rules(deployed)));
  return rules.filter(allowsSomething);
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
