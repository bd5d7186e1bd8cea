// The prepare pipeline's shapes: what it runs with (PrepareContext), the bodies of the kinds it serves
// (already validated by contract/prepare.ts: addresses as 0x strings, amounts as decimal strings in
// whole units) and what it answers (PrepareResult, stored as the SignRequest).
import type { Kysely } from "kysely";
import type { Address, PublicClient } from "viem";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Aggregator } from "../../adapters/chain/aggregator.js";
import type { BundleIssues } from "../../adapters/chain/bundle-funds.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { AllowListExtra, Bundle, BundleKind, WalletSendCalls } from "../../domain/bundles/index.js";
import type { Logger } from "../../adapters/logger.js";

export type PrepareContext = {
  /** The API's own schema: sign requests and filings are written here. */
  db: Kysely<Database>;
  /** The indexer's projections (vault status, queues, orders, grids, ladders). */
  reads: Kysely<Projections>;
  deployments: Deployments;
  /** Chain 4663: decimals, prices, minimums, previews and the simulation. */
  client: PublicClient;
  now: () => Date;
  /** Public base URL of the sign links. */
  baseUrl: string;
  logger: Logger;
  /** AGENT_ACCOUNTS: false refuses ladder-strategy via account (404 ACCOUNTS_DISABLED); absent counts as on. */
  agentAccounts?: boolean;
  /** The swap aggregator, through the route budget (the `aggregator` queue); absent: the chain's, called directly. */
  aggregator?: Aggregator;
};

/** The kinds the prepare route serves (swap and basket kinds trade through the aggregator). */
export const prepareKinds = [
  "vault-deposit",
  "vault-cancel-deposit",
  "vault-withdraw",
  "vault-cancel-withdraw",
  "limit-order",
  "ladder",
  "order-action",
  "grid",
  "ladder-strategy",
  "swap",
  "basket-buy",
  "basket-sell",
  "basket-make",
] as const;
export type PrepareKind = (typeof prepareKinds)[number];

export type CommonBody = { owner: string; slippageBps?: number; agentTag?: string } & Record<string, unknown>;

export type VaultDepositBody = CommonBody & { vault: string; amount: string };
export type VaultCancelBody = CommonBody & { vault: string; id: string };
export type VaultWithdrawBody = CommonBody & { vault: string; shares: string; mode: "usdg" | "in-kind" | "queue" };
export type LimitOrderBody = CommonBody & { token: string; side: "buy" | "sell"; amount: string; price?: string; type?: "limit" | "market" };
export type LadderBody = CommonBody & { token: string; side: "buy" | "sell"; orders: { amount: string; price: string }[] };
export type OrderActionBody = CommonBody & { id: string; action: "cancel" | "claim0" | "claim1" | "claimBoth" | "realize" };
export type GridBody = CommonBody & {
  action: "open" | "openWithMarket" | "close" | "setRepeat" | "collect";
  token?: string;
  buyPrice?: string;
  sellPrice?: string;
  /** USDG the grid starts with (the spec's name); `amount` is its older alias. */
  amountUsdg?: string;
  amount?: string;
  repeat?: boolean;
  id?: string;
};
export type LadderStrategyBody = CommonBody & {
  action: "open" | "close" | "setRepeat" | "collect";
  token?: string;
  legs?: { buyPrice: string; sellPrice: string; amount: string }[];
  sellFirst?: boolean;
  repeat?: boolean;
  oneWay?: boolean;
  id?: string;
  mask?: number;
  via?: "wallet" | "account";
  account?: string;
};

export type SwapBody = CommonBody & { tokenIn: string; tokenOut: string; amount: string };
export type BasketBuyBody = CommonBody & { basket: string; amount: string; payWith?: string };
export type BasketSellBody = CommonBody & { basket: string; amount?: string; all?: boolean; receive?: string };
export type BasketMakeBody = CommonBody & {
  name: string;
  symbol: string;
  tokens: { token: string; weightPct: number }[];
  swapFeePct?: number;
  amount: string;
  payWith?: string;
};

export type PrepareBodies = {
  "vault-deposit": VaultDepositBody;
  "vault-cancel-deposit": VaultCancelBody;
  "vault-withdraw": VaultWithdrawBody;
  "vault-cancel-withdraw": VaultCancelBody;
  "limit-order": LimitOrderBody;
  ladder: LadderBody;
  "order-action": OrderActionBody;
  grid: GridBody;
  "ladder-strategy": LadderStrategyBody;
  swap: SwapBody;
  "basket-buy": BasketBuyBody;
  "basket-sell": BasketSellBody;
  "basket-make": BasketMakeBody;
};

/** What a resolver hands the pipeline: the built bundle, the token whose chain price is filed, extra params. */
export type Resolved = {
  bundle: Bundle;
  /** The market token whose MarketRegistry price is filed with the bundle. */
  priceToken?: Address;
  /** Fields the answer's params show beside the builder's (decimal strings). */
  params?: Record<string, unknown>;
  /** What the request adds to the deployments' allow-list of the money-safety check: the tokens it resolved
   *  that the deployments do not list (a swap's unlisted token, a basket's tokens), the agent account it acts through. */
  allow?: AllowListExtra;
  /** The chain's latest block time (unix seconds) the deadlines were set from, when later than the service's clock. */
  chainTime?: bigint;
};

export type Resolver<K extends PrepareKind> = (ctx: PrepareContext, body: PrepareBodies[K], owner: Address) => Promise<Resolved>;

export type PrepareStep = { to: Address; data: `0x${string}`; value: "0" };

/** The answer of POST /v1/agent/prepare/{kind}, stored as the SignRequest. Plain JSON (no bigint). */
export type PrepareResult = {
  id: string;
  kind: BundleKind;
  owner: Address;
  steps: PrepareStep[];
  params: Record<string, unknown>;
  signUrl: string;
  expiresAt: string;
  walletSendCalls: WalletSendCalls;
  simulation: { method: "eth_simulateV1" | "eth_call+stateOverride" };
  /** What stands between the owner and the bundle (0x Swap API v2's shape): a short balance answers 200 with it. */
  issues: BundleIssues;
};
