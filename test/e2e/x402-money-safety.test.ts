// Money safety of paid runs, as a property over random requests on the devnet: random routes (grid,
// ladder, ranges), bodies (days 1-95, a charted token or one without prices, malformed fields) and
// PAYMENT-SIGNATURE headers (none, garbage, a genuine payment, one altered in amount, payee, expiry,
// signature or terms, one replayed, one signed for another request's price), sometimes sent twice at
// once. Whatever comes:
// - a result past 30 days is answered only with a settlement: PAYMENT-RESPONSE names a successful
//   transaction, seen once, moving exactly the price from the payer to the payee;
// - no answer but a 200 carries a result or a settlement;
// - a run past 30 days is asked of the workers only for a genuine, unused payment;
// - in the end the payee gained, and the payer lost, exactly the prices of the results answered.
// Real devnet, facilitator, BullMQ workers, Postgres and Redis.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { Worker } from "bullmq";
import fc from "fast-check";
import { Redis } from "ioredis";
import { decodeEventLog, getAddress, parseUnits, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { createJobClient, type JobClient } from "../../adapters/queue/request-reply.js";
import { FREE_DAYS, runPrice } from "../../domain/run-price.js";
import { BACKTEST_QUEUE } from "../../usecases/backtest-runs/jobs.js";
import { backtestProcessor } from "../../workers/processors/backtest.js";
import { deleteKeys, randomPrefix, REDIS_URL, testApp } from "../api/support.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";
import { balanceAt, mintAt, testAccount, tokenIn } from "../helpers/wallets.js";

const stack = inject("stack");
const PAYER = testAccount(16); // used by no other test
const PAYEE = getAddress("0x000000000000000000000000000000000000d0d0");
const OTHER = getAddress("0x000000000000000000000000000000000000e0e0");
const NO_PRICES = getAddress("0x000000000000000000000000000000000000dEaD");
const PRICE_PER_DAY = 0.01;

let s: StackApp;
let app: ReturnType<typeof testApp>["app"];
let prefix: string;
let usdg: Address;
let weth: Address;
let jobs: JobClient;
let worker: Worker;
/** Every run the app asked of the workers, in order (a counting wrapper around the real job client). */
const runs: { days: number }[] = [];

const x402 = new x402HTTPClient(x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(PAYER) }], spendControls: false }));

type Route = "grid" | "ladder" | "ranges";
type Req = { route: Route; token: Address; days: number; malformed: boolean };
type HeaderKind = "none" | "garbage" | "genuine" | "underpaid" | "otherPayee" | "expired" | "badSignature" | "alteredTerms" | "replay" | "otherPrice";

async function request(r: Req, headers: Record<string, string>): Promise<Response> {
  if (r.route === "ranges") {
    const days = r.malformed ? "x" : String(r.days);
    return app.request(`/v1/agent/ranges?token=${r.token}&days=${days}`, { headers });
  }
  const body =
    r.route === "grid"
      ? { token: r.token, buyPrice: 1, sellPrice: r.malformed ? 0.5 : 2, amountUsd: 100, days: r.days }
      : { token: r.token, side: "buy", levels: r.malformed ? [] : [{ price: 1, amountUsd: 10 }], days: r.days };
  return app.request(`/v1/agent/backtest/${r.route}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const offerOf = async (r: Req): Promise<PaymentRequired | undefined> => {
  const res = await request(r, {});
  if (res.status !== 402) return undefined;
  return x402.getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
};

/** A header of `kind` for request `r` (and whether it is a genuine, unused payment for it). */
async function headerFor(
  r: Req,
  kind: HeaderKind,
  used: Record<string, string>[],
  junk: string,
): Promise<{ headers: Record<string, string>; genuine: boolean }> {
  if (kind === "none") return { headers: {}, genuine: false };
  if (kind === "garbage") return { headers: { "PAYMENT-SIGNATURE": junk }, genuine: false };
  if (kind === "replay") return { headers: used.at(-1) ?? { "PAYMENT-SIGNATURE": junk }, genuine: false };
  const offer = kind === "otherPrice" ? await offerOf({ ...r, days: r.days === 90 ? 60 : 90, malformed: false }) : await offerOf(r);
  if (!offer) return { headers: { "PAYMENT-SIGNATURE": junk }, genuine: false }; // free or invalid: nothing to pay
  const accepted = offer.accepts[0]!;
  const sign = async (terms: Partial<typeof accepted>) => {
    const payload = await x402.createPaymentPayload({ ...offer, accepts: [{ ...accepted, ...terms }] });
    return { ...payload, accepted };
  };
  if (kind === "genuine" || kind === "otherPrice") {
    const headers = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(offer));
    return { headers, genuine: kind === "genuine" };
  }
  if (kind === "underpaid") return { headers: x402.encodePaymentSignatureHeader(await sign({ amount: String(BigInt(accepted.amount) - 1n) })), genuine: false };
  if (kind === "otherPayee") return { headers: x402.encodePaymentSignatureHeader(await sign({ payTo: OTHER })), genuine: false };
  if (kind === "expired") return { headers: x402.encodePaymentSignatureHeader(await sign({ maxTimeoutSeconds: -30 })), genuine: false };
  if (kind === "alteredTerms") {
    const payload = await x402.createPaymentPayload({ ...offer, accepts: [{ ...accepted, amount: "1" }] });
    return { headers: x402.encodePaymentSignatureHeader(payload), genuine: false }; // accepts terms never offered
  }
  // badSignature: one bit of the signature flipped.
  const payload = await x402.createPaymentPayload(offer);
  const p = payload.payload as { signature: Hex };
  const last = Number.parseInt(p.signature.slice(-4, -2), 16) ^ 1;
  const flipped = { ...payload, payload: { ...p, signature: `${p.signature.slice(0, -4)}${last.toString(16).padStart(2, "0")}${p.signature.slice(-2)}` } };
  return { headers: x402.encodePaymentSignatureHeader(flipped), genuine: false };
}

const usdgOf = (who: Address) => balanceAt(s.chain, usdg, who);

beforeAll(async () => {
  prefix = randomPrefix();
  s = await openStackApp(stack, { prefix });
  usdg = getAddress(s.d.contracts.usdg!);
  weth = getAddress(tokenIn(s.d, "WETH").address);
  await mintAt(stack.rpcUrl, s.chain, usdg, PAYER.address, parseUnits("100", 6));
  const real = createJobClient({ redisUrl: REDIS_URL, prefix: `${prefix}:bull` });
  jobs = {
    ...real,
    run: (queue, name, data, options) => {
      runs.push({ days: (data as { input: { days: number } }).input.days });
      return real.run(queue, name, data, options);
    },
  } as JobClient;
  worker = new Worker(BACKTEST_QUEUE, backtestProcessor({ reads: s.reads, logger: s.app.deps.logger, viewsSchema: stack.viewsSchema }), {
    connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
    prefix: `${prefix}:bull`,
    concurrency: 2,
  });
  await worker.waitUntilReady();
  app = testApp({
    ...s.app.deps,
    jobs,
    now: () => new Date(),
    rateLimit: { keyPrefix: `${prefix}:rl` },
    payments: { facilitatorUrl: stack.facilitatorUrl, payee: PAYEE, pricePerDayUsdg: PRICE_PER_DAY, keyPrefix: `${prefix}:pay` },
  }).app;
});

afterAll(async () => {
  await worker?.close();
  await jobs?.close();
  if (s) await deleteKeys(s.redis, prefix);
  await s?.close();
});

describe("no path runs or answers a paid request without a settled payment", () => {
  it("holds over random bodies and payment headers", async () => {
    const [payerStart, payeeStart] = [await usdgOf(PAYER.address), await usdgOf(PAYEE)];
    let paidTotal = 0n;
    let paidAnswers = 0;
    const seenTx = new Set<string>();
    const used: Record<string, string>[] = [];
    const kinds: HeaderKind[] = ["none", "garbage", "genuine", "underpaid", "otherPayee", "expired", "badSignature", "alteredTerms", "replay", "otherPrice"];

    await fc.assert(
      fc.asyncProperty(
        fc.record({
          route: fc.constantFrom<Route>("grid", "ladder", "ranges"),
          token: fc.oneof({ arbitrary: fc.constant(weth), weight: 4 }, { arbitrary: fc.constant(NO_PRICES), weight: 1 }),
          days: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 31, max: 95 })),
          malformed: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
        }),
        // Genuine payments often, so that many results are paid for; every other kind as often as the rest.
        fc.oneof({ arbitrary: fc.constant<HeaderKind>("genuine"), weight: kinds.length }, { arbitrary: fc.constantFrom(...kinds), weight: kinds.length }),
        fc.oneof(
          fc.base64String({ maxLength: 200 }),
          fc.string({ maxLength: 80 }).map((t) => Buffer.from(t).toString("base64")),
        ),
        fc.boolean(),
        async (r, kind, junk, twice) => {
          const { headers, genuine } = await headerFor(r, kind, used, junk || "e30=");
          const before = runs.length;
          // Sometimes the same request and header twice at once (a racing replay).
          const responses = await Promise.all(twice ? [request(r, headers), request(r, headers)] : [request(r, headers)]);
          const paid = r.days > FREE_DAYS;
          const ranPaid = runs.slice(before).filter((x) => x.days > FREE_DAYS).length;
          // A run past the free window only for a genuine, unused payment, and once for it.
          if (ranPaid > 0) expect({ kind, genuine }).toMatchObject({ genuine: true });
          expect(ranPaid).toBeLessThanOrEqual(1);
          let settledHere = 0;
          for (const res of responses) {
            const json = (await res.json()) as { data?: unknown; code?: string };
            const settlementHeader = res.headers.get("PAYMENT-RESPONSE");
            expect(res.status, JSON.stringify(json).slice(0, 300)).toBeLessThan(500);
            if (res.status !== 200) {
              expect(json.data, `${res.status} ${json.code} carries no result`).toBeUndefined();
              expect(settlementHeader).toBeNull();
              continue;
            }
            if (!paid) {
              expect(settlementHeader).toBeNull();
              continue;
            }
            // A paid result: settled, once, for exactly the price, payer to payee.
            expect(genuine).toBe(true);
            expect(settlementHeader).toBeTruthy();
            const settlement = decodePaymentResponseHeader(settlementHeader!);
            expect(settlement.success).toBe(true);
            expect(seenTx.has(settlement.transaction)).toBe(false);
            seenTx.add(settlement.transaction);
            const receipt = await s.chain.getTransactionReceipt({ hash: settlement.transaction as Hex });
            expect(receipt.status).toBe("success");
            const transfers = receipt.logs
              .filter((l) => getAddress(l.address) === usdg)
              .map((l) => decodeEventLog({ abi: testTokenAbi, data: l.data, topics: l.topics }))
              .filter((e) => e.eventName === "Transfer")
              .map((e) => e.args);
            const price = runPrice(r.days, PRICE_PER_DAY);
            expect(transfers).toEqual([{ from: PAYER.address, to: PAYEE, value: price }]);
            paidTotal += price;
            paidAnswers++;
            settledHere++;
          }
          expect(settledHere).toBeLessThanOrEqual(1); // one payment, one result
          if (settledHere) used.push(headers);
        },
      ),
      { numRuns: Number(process.env.X402_PROPERTY_RUNS ?? 200), seed: process.env.X402_PROPERTY_SEED ? Number(process.env.X402_PROPERTY_SEED) : undefined },
    );

    // Money moved exactly for the results answered, and for nothing else.
    expect(await usdgOf(PAYEE)).toBe(payeeStart + paidTotal);
    expect(await usdgOf(PAYER.address)).toBe(payerStart - paidTotal);
    console.log(`x402 property: ${paidAnswers} paid results, ${paidTotal} USDG base units settled, ${runs.length} runs asked`);
  }, 600_000);
});
