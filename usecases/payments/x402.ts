// x402 v2 payments for runs past the free window (grid and ladder backtests, ranges), with the protocol's
// own resource server (@x402/core's x402ResourceServer and x402HTTPResourceServer, @x402/evm's `exact`
// scheme). The service holds no key: the facilitator at X402_FACILITATOR_URL verifies and settles.
//
// A paid request: no PAYMENT-SIGNATURE → 402 with PaymentRequired (header and body). With one: the
// payment is claimed in Redis (payer + nonce, once: a replay → 402); the facilitator verifies it
// (invalid, underpaid, expired, another payee → 402 with the reason, the claim released); the run
// happens; then the facilitator settles it and the answer carries PAYMENT-RESPONSE. A run that fails is not settled (its
// claim is released); a settlement that fails withholds the result (402). A facilitator that cannot be
// reached → 503 UNAVAILABLE, before any run.
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
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Logger } from "../../adapters/logger.js";
import { createFacilitatorClient } from "../../adapters/payments/facilitator.js";
import { CAIP2_NETWORK } from "../../domain/chain.js";
import { ApiError } from "../../domain/errors.js";
import { FREE_DAYS } from "../../domain/run-price.js";
import { USDG_DECIMALS } from "../../domain/price.js";
import { DAY_S } from "../../domain/price.js";

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

/** The 402 body: x402 v2's PaymentRequired (as in the PAYMENT-REQUIRED header) in the error envelope. */
export type PaymentRequiredAnswer = PaymentRequired & { error: string; code: "PAYMENT_REQUIRED" };

const MAX_TIMEOUT_SECONDS = 300;

export type X402Payments = ReturnType<typeof x402Payments>;

/** The payments of one app: its resource server (initialized from the facilitator's /supported on first use). */
export function x402Payments(deps: PaymentDeps) {
  const settings = deps.payments;
  let facilitator: FacilitatorClient | undefined;
  let server: x402ResourceServer | undefined;
  let ready: Promise<void> | undefined;
  let domain: Promise<{ name: string; version: string }> | undefined;

  const unavailable = (error: unknown, message = "The payment facilitator cannot be reached now: nothing was run or charged; retry shortly"): ApiError => {
    deps.logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, "x402 facilitator unavailable");
    return new ApiError("UNAVAILABLE", message);
  };

  async function resourceServer(): Promise<x402ResourceServer> {
    if (!settings?.facilitatorUrl)
      throw new ApiError("UNAVAILABLE", "No payment facilitator is configured (X402_FACILITATOR_URL): paid runs cannot be taken now");
    facilitator ??= createFacilitatorClient(settings.facilitatorUrl, settings.facilitatorTimeoutMs);
    server ??= new x402ResourceServer(facilitator).register(CAIP2_NETWORK, new ExactEvmScheme());
    const [s, f] = [server, facilitator];
    // Asked once first by us: a facilitator that is down is then a logged 503, not x402's stderr line.
    ready ??= f
      .getSupported()
      .then(() => s.initialize())
      .catch((error) => {
        ready = undefined; // the next paid request asks /supported again
        throw error;
      });
    try {
      await ready;
    } catch (error) {
      throw unavailable(error);
    }
    return s;
  }

  /** USDG's EIP-712 domain (name, version), read once from the token (ERC-5267): what payers sign over. */
  function usdgDomain(usdg: Address) {
    const client = deps.client;
    if (!client) throw new ApiError("UNAVAILABLE", "The chain cannot be read now: paid runs cannot be priced");
    domain ??= client.readContract({ address: usdg, abi: testTokenAbi, functionName: "eip712Domain" }).then(
      ([, name, version]) => ({ name, version }),
      (error) => {
        domain = undefined;
        throw error;
      },
    );
    return domain.catch(() => {
      throw new ApiError("UNAVAILABLE", "USDG's signing domain cannot be read from the chain now: retry shortly");
    });
  }

  /** The one accepted way to pay `offer`: exact, USDG on chain 4663, to the payee. */
  async function routeConfig(offer: Offer, url: string) {
    const usdg = deps.deployments.contracts.usdg;
    const payTo = settings?.payee ?? offer.payTo;
    if (!usdg || !payTo) throw new ApiError("UNAVAILABLE", "The payment details (USDG, payee) cannot be read now");
    const extra = await usdgDomain(getAddress(usdg));
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
      description: `${offer.what} over ${offer.days} days: ${offer.days - FREE_DAYS} days past the free ${FREE_DAYS} at ${settings?.pricePerDayUsdg} USDG a day = ${price} USDG`,
    } as const;
  }

  /** A 402 answer: PaymentRequired in the PAYMENT-REQUIRED header and, with the envelope, in the body. */
  function refusal(paymentRequired: PaymentRequired, headers: Record<string, string>): PaidAnswer<never> {
    const reason = paymentRequired.error;
    const priced = paymentRequired.resource.description;
    const error =
      !reason || reason === "Payment required"
        ? `Payment required: ${priced}. Pay with x402 v2 (scheme exact, USDG, ${CAIP2_NETWORK}) in the PAYMENT-SIGNATURE header, or ask for ${FREE_DAYS} days or fewer (free)`
        : `Payment refused (${reason}): ${priced}. Sign a new payment for exactly this amount and payee`;
    return {
      kind: "refused",
      status: 402,
      headers: { ...headers, "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired) },
      body: { ...paymentRequired, error, code: "PAYMENT_REQUIRED" },
    };
  }

  /** One payment buys one run: the payer's authorization nonce, claimed until it can no longer settle. */
  const claimKey = (payload: PaymentPayload) => {
    const auth = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
    const id =
      typeof auth?.from === "string" && typeof auth.nonce === "string"
        ? `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`
        : createHash("sha256").update(JSON.stringify(payload.payload)).digest("hex");
    return `${settings!.keyPrefix}:x402:${id}`;
  };
  const claimSeconds = (payload: PaymentPayload) => {
    const validBefore = Number((payload.payload as { authorization?: { validBefore?: unknown } }).authorization?.validBefore);
    const left = Number.isFinite(validBefore) ? validBefore - Math.floor(deps.now().getTime() / 1000) : MAX_TIMEOUT_SECONDS;
    return Math.min(DAY_S, Math.max(60, Math.ceil(left) + 60));
  };
  async function claim(payload: PaymentPayload): Promise<boolean> {
    try {
      return (await deps.redis.set(claimKey(payload), "1", "EX", claimSeconds(payload), "NX")) === "OK";
    } catch {
      throw new ApiError("UNAVAILABLE", "Payments cannot be recorded now (Redis): nothing was run or charged; retry shortly");
    }
  }
  const release = (payload: PaymentPayload) => deps.redis.del(claimKey(payload)).catch(() => 0);

  /**
   * Runs `run` once its payment for `offer` is verified, then settles it. `run` is never called without
   * a payment the facilitator verified and this process claimed; its result is never answered unsettled.
   */
  async function pay<T>(request: PaidRequest, offer: Offer, record: RunRecord, run: () => Promise<T>): Promise<PaidAnswer<T>> {
    const config = await routeConfig(offer, request.url);
    const s = await resourceServer();
    const http = new x402HTTPResourceServer(s, config);
    const context = {
      adapter: request.adapter,
      path: request.path,
      method: request.method,
      paymentHeader: request.adapter.getHeader("payment-signature"),
    };
    // One payment buys one run: claimed (payer + nonce, in Redis) before the facilitator is asked, so a
    // replay is refused at once and two requests racing with one payment cannot both run. A payment
    // that turns out invalid, or is not checked, is released.
    const presented = presentedPayment(context.paymentHeader);
    const refuse = async (reason: string) => {
      const requirements = await s.buildPaymentRequirementsFromOptions([config.accepts], context);
      const resource = { url: config.resource, description: config.description, mimeType: config.mimeType };
      return refusal(await s.createPaymentRequiredResponse(requirements, resource, reason), {});
    };
    // A header that is no payment payload at all is refused here (x402 would print it to stderr).
    if (context.paymentHeader && !presented) return refuse("invalid_payment_header");
    if (presented && !(await claim(presented))) return refuse("payment_already_used");
    const unclaim = () => (presented ? release(presented) : Promise.resolve(0));
    let processed: Awaited<ReturnType<typeof http.processHTTPRequest>>;
    try {
      processed = await http.processHTTPRequest(context);
    } catch (error) {
      await unclaim();
      throw unavailable(error);
    }
    if (processed.type === "no-payment-required") throw new Error("x402: a priced route was not priced"); // cannot happen: one route, always priced
    if (processed.type === "payment-error") {
      await unclaim();
      const { headers } = processed.response;
      const header = headers["PAYMENT-REQUIRED"];
      const paymentRequired = header ? decodePaymentRequiredHeader(header) : undefined;
      if (!paymentRequired) throw new Error(`x402: a ${processed.response.status} without PAYMENT-REQUIRED`);
      return refusal(paymentRequired, {});
    }
    const { paymentPayload, paymentRequirements } = processed;
    const paymentRequired = (reason: string): PaymentRequired => ({
      x402Version: 2,
      error: reason,
      resource: { url: config.resource, description: config.description, mimeType: config.mimeType },
      accepts: [paymentRequirements],
    });
    // The verified payment is the one claimed (the same header); claim it here should that ever differ.
    if (!(presented && claimKey(presented) === claimKey(paymentPayload)) && !(await claim(paymentPayload)))
      return refusal(paymentRequired("payment_already_used"), {});

    let result: T;
    try {
      result = await run();
    } catch (error) {
      await release(paymentPayload); // nothing bought: the payment is still the payer's to use
      throw error;
    }

    let settled: Awaited<ReturnType<typeof http.processSettlement>>;
    try {
      settled = await http.processSettlement(paymentPayload, paymentRequirements, undefined, { request: context });
    } catch (error) {
      // The claim stays: whether the payment settled is unknown, so it is never taken for another run.
      throw unavailable(
        error,
        "The payment facilitator failed while settling: the result is withheld and this payment is not taken again (it may still settle: check its nonce on chain before paying anew)",
      );
    }
    if (!settled.success) {
      deps.logger.warn({ reason: settled.errorReason, payer: settled.payer }, "x402 settlement failed; result withheld");
      return refusal(paymentRequired(settled.errorReason), {});
    }
    const settlement: Settlement = {
      transaction: settled.transaction,
      payer: getAddress(settled.payer ?? (paymentPayload.payload as { authorization: { from: string } }).authorization.from),
      network: settled.network,
      amount: paymentRequirements.amount,
    };
    await logPaidRun(deps.db, record, settlement, paymentRequirements, deps.now()).catch((error) =>
      deps.logger.error({ err: { message: (error as Error).message }, transaction: settlement.transaction }, "paid run not logged"),
    );
    return { kind: "paid", result, headers: settled.headers, settlement };
  }

  return { pay };
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
async function logPaidRun(db: Kysely<Database>, record: RunRecord, settlement: Settlement, requirements: PaymentRequirements, now: Date) {
  await db
    .insertInto("strategy_run")
    .values({
      identity_kind: "payer",
      identity_value: settlement.payer.toLowerCase(),
      token: record.token.toLowerCase(),
      strategy: record.strategy,
      input: record.input,
      summary: { paid: { ...settlement, asset: requirements.asset, payTo: requirements.payTo } },
      settlement_tx: settlement.transaction.toLowerCase(),
      created_at: now,
    })
    .execute();
}
