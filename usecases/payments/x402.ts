// x402 v2 payments for runs past the free window (grid and ladder backtests, ranges), with the protocol's
// own resource server (@x402/core's x402ResourceServer and x402HTTPResourceServer, @x402/evm's `exact`
// scheme). The service holds no key: the facilitator at X402_FACILITATOR_URL verifies and settles.
//
// A paid request: no PAYMENT-SIGNATURE → 402 with PaymentRequired (header and body). With one: the
// payment is claimed in Redis (payer + nonce, once: a replay → 402); the facilitator verifies it
// (invalid, underpaid, expired, another payee → 402 with the reason, the claim released); the run
// happens; then the facilitator settles it and the answer carries PAYMENT-RESPONSE. A run that fails is not settled (its
// claim is released); a settlement that fails withholds the result (402). A facilitator that cannot be
// reached → 503 UNAVAILABLE, before any run. A refusal names its reason, the check that failed (the facilitator's
// message: which signature check, ECDSA, ERC-1271 or ERC-6492) and what the payer can do (domain/payment-refusals.ts).
import {
  decodePaymentRequiredHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  x402HTTPResourceServer,
  type HTTPAdapter,
} from "@x402/core/http";
import { type FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { formatUnits, getAddress, type Address, type PublicClient } from "viem";
import { testTokenAbi } from "../../abis/TestToken.js";
import type { Config } from "../../adapters/config.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { insertPaidRun } from "../../adapters/db/payments.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Logger } from "../../adapters/logger.js";
import { createFacilitatorClient } from "../../adapters/payments/facilitator.js";
import { CAIP2_NETWORK } from "../../domain/chain.js";
import { ApiError } from "../../domain/errors.js";
import { remedyFor } from "../../domain/payment-refusals.js";
import { FREE_DAYS } from "../../domain/run-price.js";
import { DAY_S, USDG_DECIMALS } from "../../domain/price.js";
import { claim, releaseClaim } from "../../adapters/redis-claims.js";

/** How payments are taken: X402_FACILITATOR_URL, X402_PAYEE, X402_PRICE_PER_DAY_USDG, REDIS_PREFIX. */
export type PaymentSettings = {
  /** Unset: no facilitator, so paid runs answer 503 UNAVAILABLE. */
  facilitatorUrl?: string;
  /** Unset: the service admin the chain names. */
  payee?: string;
  pricePerDayUsdg: number;
  /** Redis key prefix of the payments' claims (one payment buys one run). */
  keyPrefix: string;
  /** Each facilitator call's deadline (default 15 s). */
  facilitatorTimeoutMs?: number;
};

/** The settings as the configuration gives them (the API and `npm run mcp`). */
export const paymentSettingsOf = (config: Config): PaymentSettings => ({
  facilitatorUrl: config.X402_FACILITATOR_URL,
  payee: config.X402_PAYEE,
  pricePerDayUsdg: config.X402_PRICE_PER_DAY_USDG,
  keyPrefix: `${config.REDIS_PREFIX}:pay`,
});

export type PaymentDeps = {
  payments?: PaymentSettings;
  redis: Redis;
  db: Kysely<Database>;
  deployments: Deployments;
  client?: PublicClient;
  logger: Logger;
  now: () => Date;
};

/** The request, as x402's resource server reads it (an adapter of the face's framework). */
export type PaidRequest = { adapter: HTTPAdapter; path: string; method: string; url: string };

/** What a run costs and who is paid. */
export type Offer = { amount: bigint; days: number; payTo: Address | null; what: string };

/** The run's line in the run log (strategy_run) once paid. */
export type RunRecord = { strategy: string; token: string; input: Record<string, unknown> };

export type Settlement = { transaction: string; payer: string; network: string; amount: string };

export type PaidAnswer<T> =
  | { kind: "paid"; result: T; headers: Record<string, string>; settlement: Settlement }
  | { kind: "refused"; status: 402; headers: Record<string, string>; body: PaymentRequiredAnswer };

/** Why a payment was refused: x402's reason, the check that failed (when the facilitator says), what the payer can do. */
export type RefusalDetails = { reason: string; check?: string; remedy: string };

/** The 402 body: x402 v2's PaymentRequired (as in the PAYMENT-REQUIRED header) in the error envelope. */
export type PaymentRequiredAnswer = PaymentRequired & { error: string; code: "PAYMENT_REQUIRED"; details?: RefusalDetails };

const MAX_TIMEOUT_SECONDS = 300;

export type X402Payments = ReturnType<typeof x402Payments>;

/** One app's payments: its settings and dependencies, and what it learned once (facilitator, server, USDG's domain). */
type Payments = {
  deps: PaymentDeps;
  settings: PaymentSettings | undefined;
  facilitator?: FacilitatorClient;
  server?: x402ResourceServer;
  ready?: Promise<void>;
  domain?: Promise<{ name: string; version: string }>;
  /** The facilitator's message of each refused verification (which check failed), by claim key, until the 402 is made. */
  messages: Map<string, string>;
};

function unavailable(
  deps: PaymentDeps,
  error: unknown,
  message = "The payment facilitator cannot be reached now: nothing was run or charged; retry shortly",
): ApiError {
  deps.logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, "x402 facilitator unavailable");
  return new ApiError("UNAVAILABLE", message);
}

async function resourceServer(p: Payments): Promise<x402ResourceServer> {
  const settings = p.settings;
  if (!settings?.facilitatorUrl)
    throw new ApiError("UNAVAILABLE", "No payment facilitator is configured (X402_FACILITATOR_URL): paid runs cannot be taken now");
  p.facilitator ??= keepingMessages(p, createFacilitatorClient(settings.facilitatorUrl, settings.facilitatorTimeoutMs));
  p.server ??= new x402ResourceServer(p.facilitator).register(CAIP2_NETWORK, new ExactEvmScheme());
  const [s, f] = [p.server, p.facilitator];
  // Asked once first by us: a facilitator that is down is then a logged 503, not x402's stderr line.
  p.ready ??= f
    .getSupported()
    .then(() => s.initialize())
    .catch((error) => {
      p.ready = undefined; // the next paid request asks /supported again
      throw error;
    });
  try {
    await p.ready;
  } catch (error) {
    throw unavailable(p.deps, error);
  }
  return s;
}

/**
 * The facilitator, its refusals' messages kept for the 402: x402's HTTP server passes on only the reason, and the
 * message is what says which check failed (a signature by ECDSA, ERC-1271 or ERC-6492).
 */
function keepingMessages(p: Payments, facilitator: FacilitatorClient): FacilitatorClient {
  return {
    getSupported: () => facilitator.getSupported(),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    verify: async (payload, requirements) => {
      const verdict = await facilitator.verify(payload, requirements);
      if (!verdict.isValid && verdict.invalidMessage) p.messages.set(claimKey(p, payload), verdict.invalidMessage);
      return verdict;
    },
  };
}

/** The facilitator's message about `payload`'s refusal, once. */
function takeMessage(p: Payments, payload: PaymentPayload | undefined): string | undefined {
  if (!payload) return undefined;
  const key = claimKey(p, payload);
  const message = p.messages.get(key);
  p.messages.delete(key);
  return message;
}

/** USDG's EIP-712 domain (name, version), read once from the token (ERC-5267): what payers sign over. */
function usdgDomain(p: Payments, usdg: Address) {
  const client = p.deps.client;
  if (!client) throw new ApiError("UNAVAILABLE", "The chain cannot be read now: paid runs cannot be priced");
  p.domain ??= client.readContract({ address: usdg, abi: testTokenAbi, functionName: "eip712Domain" }).then(
    ([, name, version]) => ({ name, version }),
    (error) => {
      p.domain = undefined;
      throw error;
    },
  );
  return p.domain.catch(() => {
    throw new ApiError("UNAVAILABLE", "USDG's signing domain cannot be read from the chain now: retry shortly");
  });
}

/** The one accepted way to pay `offer`: exact, USDG on chain 4663, to the payee. */
async function routeConfig(p: Payments, offer: Offer, url: string) {
  const usdg = p.deps.deployments.contracts.usdg;
  const payTo = p.settings?.payee ?? offer.payTo;
  if (!usdg || !payTo) throw new ApiError("UNAVAILABLE", "The payment details (USDG, payee) cannot be read now");
  const extra = await usdgDomain(p, getAddress(usdg));
  const price = formatUnits(offer.amount, USDG_DECIMALS);
  return {
    accepts: {
      scheme: "exact",
      network: CAIP2_NETWORK,
      payTo: getAddress(payTo),
      price: { asset: getAddress(usdg), amount: offer.amount.toString(), extra },
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    },
    resource: url,
    mimeType: "application/json",
    description: `${offer.what} over ${offer.days} days: ${offer.days - FREE_DAYS} days past the free ${FREE_DAYS} at ${p.settings?.pricePerDayUsdg} USDG a day = ${price} USDG`,
  } as const;
}

type RouteConfig = Awaited<ReturnType<typeof routeConfig>>;

/**
 * A 402 answer: PaymentRequired in the PAYMENT-REQUIRED header and, with the envelope, in the body. A refused
 * payment says its reason, the check that failed (`check`: the facilitator's message) and what the payer can do.
 */
function refusal(paymentRequired: PaymentRequired, headers: Record<string, string>, message?: string): PaidAnswer<never> {
  const reason = paymentRequired.error;
  // The facilitator's words, its first line only and bounded: a raw error's later lines may name its RPC.
  const check = message?.split("\n")[0]?.slice(0, 1000);
  const priced = paymentRequired.resource.description;
  const refused = !!reason && reason !== "Payment required";
  const details: RefusalDetails | undefined = refused ? { reason, ...(check && check !== reason ? { check } : {}), remedy: remedyFor(reason) } : undefined;
  const error = details
    ? `Payment refused (${reason})${details.check ? `: ${details.check}` : ""}. ${details.remedy}. The offer: ${priced}`
    : `Payment required: ${priced}. Pay with x402 v2 (scheme exact, USDG, ${CAIP2_NETWORK}) in the PAYMENT-SIGNATURE header, or ask for ${FREE_DAYS} days or fewer (free)`;
  return {
    kind: "refused",
    status: 402,
    headers: { ...headers, "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired) },
    body: { ...paymentRequired, error, code: "PAYMENT_REQUIRED", ...(details ? { details } : {}) },
  };
}

/** One payment buys one run: the payer's authorization nonce, claimed until it can no longer settle. */
function claimKey(p: Payments, payload: PaymentPayload): string {
  const auth = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  const id =
    typeof auth?.from === "string" && typeof auth.nonce === "string"
      ? `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`
      : createHash("sha256").update(JSON.stringify(payload.payload)).digest("hex");
  return `${p.settings!.keyPrefix}:x402:${id}`;
}

function claimSeconds(p: Payments, payload: PaymentPayload): number {
  const validBefore = Number((payload.payload as { authorization?: { validBefore?: unknown } }).authorization?.validBefore);
  const left = Number.isFinite(validBefore) ? validBefore - Math.floor(p.deps.now().getTime() / 1000) : MAX_TIMEOUT_SECONDS;
  return Math.min(DAY_S, Math.max(60, Math.ceil(left) + 60));
}

async function claimPayment(p: Payments, payload: PaymentPayload): Promise<boolean> {
  try {
    return await claim(p.deps.redis, claimKey(p, payload), claimSeconds(p, payload));
  } catch {
    throw new ApiError("UNAVAILABLE", "Payments cannot be recorded now (Redis): nothing was run or charged; retry shortly");
  }
}

const release = (p: Payments, payload: PaymentPayload) => releaseClaim(p.deps.redis, claimKey(p, payload));

/** A paid request on its way: the route's one way to pay, x402's servers and the request as they read it. */
type Gate = {
  config: RouteConfig;
  server: x402ResourceServer;
  http: x402HTTPResourceServer;
  context: { adapter: HTTPAdapter; path: string; method: string; paymentHeader: string | undefined };
};

/** A payment the facilitator verified and this process claimed. */
type Verified = { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };

/**
 * The request's payment, verified by the facilitator and claimed, or the 402 that refuses it. One payment
 * buys one run: claimed (payer + nonce, in Redis) before the facilitator is asked, so a replay is refused at
 * once and two requests racing with one payment cannot both run. A payment that turns out invalid, or is
 * not checked, is released.
 */
async function verifiedPayment(p: Payments, { config, server, http, context }: Gate): Promise<Verified | PaidAnswer<never>> {
  const presented = presentedPayment(context.paymentHeader);
  const refuse = async (reason: string) => {
    const requirements = await server.buildPaymentRequirementsFromOptions([config.accepts], context);
    const resource = { url: config.resource, description: config.description, mimeType: config.mimeType };
    return refusal(await server.createPaymentRequiredResponse(requirements, resource, reason), {});
  };
  // A header that is no payment payload at all is refused here (x402 would print it to stderr).
  if (context.paymentHeader && !presented) return refuse("invalid_payment_header");
  if (presented && !(await claimPayment(p, presented))) return refuse("payment_already_used");
  const unclaim = () => (presented ? release(p, presented) : Promise.resolve());
  let processed: Awaited<ReturnType<typeof http.processHTTPRequest>>;
  try {
    processed = await http.processHTTPRequest(context);
  } catch (error) {
    await unclaim();
    throw unavailable(p.deps, error);
  }
  if (processed.type === "no-payment-required") throw new Error("x402: a priced route was not priced"); // cannot happen: one route, always priced
  if (processed.type === "payment-error") {
    await unclaim();
    const { headers } = processed.response;
    const header = headers["PAYMENT-REQUIRED"];
    const paymentRequired = header ? decodePaymentRequiredHeader(header) : undefined;
    if (!paymentRequired) throw new Error(`x402: a ${processed.response.status} without PAYMENT-REQUIRED`);
    return refusal(paymentRequired, {}, takeMessage(p, presented));
  }
  const { paymentPayload, paymentRequirements } = processed;
  // The verified payment is the one claimed (the same header); claim it here should that ever differ.
  if (!(presented && claimKey(p, presented) === claimKey(p, paymentPayload)) && !(await claimPayment(p, paymentPayload)))
    return refusal(paymentRequiredOf(config, paymentRequirements, "payment_already_used"), {});
  return { paymentPayload, paymentRequirements };
}

/** The 402 of a verified payment that cannot buy the run (already used, or not settled). */
const paymentRequiredOf = (config: RouteConfig, requirements: PaymentRequirements, reason: string): PaymentRequired => ({
  x402Version: 2,
  error: reason,
  resource: { url: config.resource, description: config.description, mimeType: config.mimeType },
  accepts: [requirements],
});

/** Settles a run's verified payment and logs the run; a settlement that fails withholds the result (402). */
async function settle<T>(p: Payments, gate: Gate, verified: Verified, record: RunRecord, result: T): Promise<PaidAnswer<T>> {
  const { paymentPayload, paymentRequirements } = verified;
  let settled: Awaited<ReturnType<typeof gate.http.processSettlement>>;
  try {
    settled = await gate.http.processSettlement(paymentPayload, paymentRequirements, undefined, { request: gate.context });
  } catch (error) {
    // The claim stays: whether the payment settled is unknown, so it is never taken for another run.
    throw unavailable(
      p.deps,
      error,
      "The payment facilitator failed while settling: the result is withheld and this payment is not taken again (it may still settle: check its nonce on chain before paying anew)",
    );
  }
  if (!settled.success) {
    p.deps.logger.warn({ reason: settled.errorReason, payer: settled.payer }, "x402 settlement failed; result withheld");
    return refusal(paymentRequiredOf(gate.config, paymentRequirements, settled.errorReason), {}, settled.errorMessage);
  }
  const settlement: Settlement = {
    transaction: settled.transaction,
    payer: getAddress(settled.payer ?? (paymentPayload.payload as { authorization: { from: string } }).authorization.from),
    network: settled.network,
    amount: paymentRequirements.amount,
  };
  await logPaidRun(p.deps.db, record, settlement, paymentRequirements, p.deps.now()).catch((error) =>
    p.deps.logger.error({ err: { message: (error as Error).message }, transaction: settlement.transaction }, "paid run not logged"),
  );
  return { kind: "paid", result, headers: settled.headers, settlement };
}

/**
 * Runs `run` once its payment for `offer` is verified, then settles it. `run` is never called without
 * a payment the facilitator verified and this process claimed; its result is never answered unsettled.
 */
async function pay<T>(p: Payments, request: PaidRequest, offer: Offer, record: RunRecord, run: () => Promise<T>): Promise<PaidAnswer<T>> {
  const config = await routeConfig(p, offer, request.url);
  const server = await resourceServer(p);
  const http = new x402HTTPResourceServer(server, config);
  const context = { adapter: request.adapter, path: request.path, method: request.method, paymentHeader: request.adapter.getHeader("payment-signature") };
  const gate: Gate = { config, server, http, context };
  const verified = await verifiedPayment(p, gate);
  if ("kind" in verified) return verified;
  let result: T;
  try {
    result = await run();
  } catch (error) {
    await release(p, verified.paymentPayload); // nothing bought: the payment is still the payer's to use
    throw error;
  }
  return settle(p, gate, verified, record, result);
}

/** The payments of one app: its resource server (initialized from the facilitator's /supported on first use). */
export function x402Payments(deps: PaymentDeps) {
  const payments: Payments = { deps, settings: deps.payments, messages: new Map() };
  return { pay: <T>(request: PaidRequest, offer: Offer, record: RunRecord, run: () => Promise<T>) => pay(payments, request, offer, record, run) };
}

/** The payment a PAYMENT-SIGNATURE header carries, when it decodes as one. */
function presentedPayment(header: string | undefined): PaymentPayload | undefined {
  if (!header) return undefined;
  try {
    const payload = decodePaymentSignatureHeader(header);
    return typeof payload?.payload === "object" && payload.payload !== null ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** A paid run in the run log (strategy_run), by its payer, with the transaction that settled it. */
async function logPaidRun(db: Kysely<Database>, record: RunRecord, settlement: Settlement, requirements: PaymentRequirements, now: Date): Promise<void> {
  await insertPaidRun(db, {
    payer: settlement.payer.toLowerCase(),
    token: record.token.toLowerCase(),
    strategy: record.strategy,
    input: record.input,
    summary: { paid: { ...settlement, asset: requirements.asset, payTo: requirements.payTo } },
    settlementTx: settlement.transaction.toLowerCase(),
    at: now,
  });
}
