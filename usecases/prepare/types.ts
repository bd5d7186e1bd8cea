// The prepare pipeline's shapes: what it runs with (PrepareContext), the bodies of the kinds it serves
// (the types of contract/prepare.ts's schemas: addresses as 0x strings, amounts as decimal strings in
// whole units) and what it answers (PrepareResult, stored as the SignRequest).
import type { Kysely } from "kysely";
import type { Address, PublicClient } from "viem";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Aggregator } from "../../adapters/chain/aggregator.js";
import type { BundleIssues, Spend } from "../../adapters/chain/bundle-funds.js";
import type { ChainSimulator } from "../../adapters/chain/simulate.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { AllowList, AllowListExtra, Bundle, BundleKind, FigureExpectations, WalletSendCalls } from "../../domain/bundles/index.js";
import type { Logger } from "../../adapters/logger.js";
import type { ApiError } from "../../domain/errors.js";
import type { z } from "@hono/zod-openapi";
import type { PrepareKind, prepareKindRegistry } from "../../contract/prepare-kinds.js";

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
  /** Unexpired sign requests one client may hold (default LIVE_SIGN_REQUESTS_PER_CLIENT). */
  signRequestsPerClient?: number;
  /** True when the caller has given up: the pipeline then stores no sign request and no filing. */
  callerGone?: () => Promise<boolean>;
  /** Bundles simulated on the chain of `client` (made at start: prepareContext in pipeline.ts). */
  simulator: ChainSimulator;
  /** The deployments' contracts and tokens, as the money-safety check allows them (made at start). */
  allowList: AllowList;
};

/** What the pipeline's context is made from, once at start (pipeline.ts, prepareContext). */
export type PrepareSetup = Omit<PrepareContext, "simulator" | "allowList">;

/** The kinds the prepare route serves (contract/prepare-kinds.ts; swap and basket kinds trade through the aggregator). */
export type { PrepareKind };

/**
 * The body of each kind as the pipeline takes it: its schema's (contract/prepare-kinds.ts) input, so a default
 * (slippageBps, via...) may be absent; the route hands the parsed body, defaults filled in.
 */
export type PrepareBodies = { [K in PrepareKind]: z.input<(typeof prepareKindRegistry)[K]["body"]> };
export type GridBody = PrepareBodies["grid"];
export type LadderStrategyBody = PrepareBodies["ladder-strategy"];

/** What a resolver hands the pipeline: the built bundle, the token whose chain price is filed, extra params. */
export type Resolved = {
  bundle: Bundle<BundleKind>;
  /** The market token whose MarketRegistry price is filed with the bundle. */
  priceToken?: Address;
  /** Fields the answer's params show beside the builder's (decimal strings). */
  params?: Record<string, unknown>;
  /** What the request adds to the deployments' allow-list of the money-safety check: the tokens it resolved
   *  that the deployments do not list (a swap's unlisted token, a basket's tokens), the agent account it acts through. */
  allow?: AllowListExtra;
  /**
   * What the bundle spends from an address other than the signer, which approves it itself (an agent
   * account's open): its shortfall is answered in `issues.balance` with that `holder`, as a wallet's is.
   */
  spends?: Spend[];
  /** The chain's latest block time (unix seconds) the deadlines were set from, when later than the service's clock. */
  chainTime?: bigint;
  /**
   * The resolver's own reading of a revert of the pipeline's simulation (which grants a short balance, so
   * an unfunded owner still gets the bundle): the refusal to answer instead of the kind's default.
   */
  refuseRevert?: (reason: string, step: number) => ApiError;
  /**
   * What the request asked (the amount paid in, base units) and what the answer shows (the quote's floors
   * at the slippage asked): the run-time check refuses a bundle whose figures differ, as the typed client would.
   */
  figures?: FigureExpectations;
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
  /** Whether the action is filed for the report card, and as the owner's own (prepared with its session). */
  reportCard: { filed: boolean; ownerSession: boolean; note: string };
};

/** Who asks for the prepare, as the API saw it: the owner's live session or not, and the client (rate-limit key). */
export type PrepareFiler = { ownerSession: boolean; client: string | null };
