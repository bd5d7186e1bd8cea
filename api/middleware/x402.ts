// The x402 gate of the paid routes (backtests and ranges): free up to FREE_DAYS; past it, the run only once
// its x402 payment is verified, answered only once settled (usecases/payments/x402.ts holds the payment
// logic). Per route rather than app-wide: the price follows the validated input (its days), so a route's
// handler hands its run to the gate. The gate speaks HTTP: the request as x402 reads it, the 402, the headers.
import { HonoAdapter } from "@x402/hono";
import type { Context } from "hono";
import type { ServiceChainState } from "../../adapters/chain/service-state.js";
import { runPrice } from "../../domain/run-price.js";
import { checkReplay } from "../../usecases/backtest-runs/requests.js";
import { type RunRecord, x402Payments } from "../../usecases/payments/x402.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";

/**
 * The URL a client reaches the request at: under BASE_URL when set, since a request can arrive through a
 * proxy or from the MCP face (which asks the app at http://localhost).
 */
function publicUrl(requestUrl: string, baseUrl: string | undefined): string {
  if (!baseUrl) return requestUrl;
  const { pathname, search } = new URL(requestUrl);
  return `${baseUrl.replace(/\/+$/, "")}${pathname}${search}`;
}

/** A JSON client's request as x402 reads it: never its HTML paywall (the answers here are JSON). */
class JsonRequestAdapter extends HonoAdapter {
  override getAcceptHeader() {
    return "application/json";
  }
}

/** A run the gate prices: its days, the chain state that names the payee, its run-log line and what it is. */
export type PricedRun = { days: number; state: ServiceChainState; record: RunRecord; what: string };

/**
 * The gate of one app. A paid run is first checked (checkReplay), so a payment is never asked for one that
 * cannot run.
 */
export function x402Gate(deps: AppContext, pricePerDayUsdg: number) {
  const payments = x402Payments(deps);
  return async <T>(c: Context<AppEnv>, { days, state, record, what }: PricedRun, work: () => Promise<T>) => {
    const amount = runPrice(days, pricePerDayUsdg);
    if (amount === 0n) return ok(c, await work());
    await checkReplay(deps, { token: record.token, days });
    const offer = { amount, days, payTo: state.serviceAdmin, what };
    const request = { adapter: new JsonRequestAdapter(c), path: c.req.path, method: c.req.method, url: publicUrl(c.req.url, deps.baseUrl) };
    const answer = await payments.pay(request, offer, record, work);
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    return answer.kind === "paid" ? ok(c, answer.result) : (c.json(answer.body, 402) as never);
  };
}
