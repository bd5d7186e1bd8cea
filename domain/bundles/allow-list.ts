import { NATIVE_ETH } from "./steps.js";

/** What the money-safety check accepts beside the owner. Addresses compare case-insensitively. */
export type AllowList = {
  /** Contracts a step may call and an approval may name as its spender (the service's own). */
  contracts: ReadonlySet<string>;
  /** Tokens an approve may be sent to, and that any address argument may name (with contracts and the owner). */
  tokens: ReadonlySet<string>;
};

/** The shape of the deployments file the allow-list reads (adapters/chain/deployments.ts fits it). */
export type AllowListDeployments = {
  contracts: Record<string, string | undefined>;
  tokens: readonly { address: string }[];
  vaults: readonly { address: string; depositQueue?: string | null; withdrawalQueue?: string | null; redeemQueue?: string | null; router?: string | null }[];
  baskets?: readonly { address: string }[];
};

/** Beside the deployments: what one request adds (its tokens; the agent account it acts through). */
export type AllowListExtra = { contracts?: readonly string[]; tokens?: readonly string[] };

const lower = (xs: Iterable<string | null | undefined>) => {
  const out = new Set<string>();
  for (const x of xs) if (typeof x === "string" && x.length > 0) out.add(x.toLowerCase());
  return out;
};

/**
 * The allow-list of a deployments file, with a request's extra contracts and tokens. Vault addresses are
 * contracts (deposits and exits call them) and tokens too (their shares are approved). Native ETH
 * (0xEeee…EEeE) counts as a token: the swap router takes it as tokenOut and unwraps WETH.
 */
export function allowListOf(deployments: AllowListDeployments, extra: AllowListExtra = {}): AllowList {
  const vaults = deployments.vaults.flatMap((v) => [v.address, v.depositQueue, v.withdrawalQueue, v.redeemQueue, v.router]);
  const contracts = lower([...Object.values(deployments.contracts), ...vaults, ...(extra.contracts ?? [])]);
  const tokens = lower([
    ...deployments.tokens.map((t) => t.address),
    ...(deployments.baskets ?? []).map((b) => b.address),
    ...deployments.vaults.map((v) => v.address),
    ...(extra.tokens ?? []),
    NATIVE_ETH,
  ]);
  return { contracts, tokens };
}

/** `base` with a request's extra contracts and tokens (the base is not changed). */
export function withExtra(base: AllowList, extra: AllowListExtra): AllowList {
  if (!extra.contracts?.length && !extra.tokens?.length) return base;
  return { contracts: lower([...base.contracts, ...(extra.contracts ?? [])]), tokens: lower([...base.tokens, ...(extra.tokens ?? [])]) };
}
