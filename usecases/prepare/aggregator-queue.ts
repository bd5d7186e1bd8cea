// The aggregator route budget: every aggregator call (a quote, or one route of a prepare) is a job on
// the BullMQ queue `aggregator`, whose workers run with a `limiter` of AGGREGATOR_BUDGET_PER_SECOND
// calls per second. Quotes (API) and prepares (prepare workers) share it. A call past the budget waits
// for its turn up to a deadline, then answers 429 BUSY; a job whose caller has given up is dropped
// by the worker without calling the aggregator.
import type { Address, Hex, PublicClient } from "viem";
import { directAggregator } from "../../adapters/chain/aggregator-direct.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { config } from "../../adapters/config.js";
import {
  AggregatorUnavailableError,
  NoRouteError,
  type Aggregator,
  type AggregatorQuote,
  type AggregatorQuoteRequest,
  type AggregatorRoute,
  type AggregatorRouteRequest,
} from "../../adapters/chain/aggregator.js";
import { ApiError } from "../../domain/errors.js";
import { CallerGoneError, JobFailedError, JobTimeoutError, QueueBusyError, type Caller, type JobClient } from "../../adapters/queue/request-reply.js";

export const AGGREGATOR_QUEUE = "aggregator";
/** Aggregator calls one API client may wait for at once (quotes; issue 32: fair queues). */
export const AGGREGATOR_SHARE = 4;

/** Plain JSON of the requests and answers (bigints as decimal strings). */
type Wire<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

export type AggregatorJobData =
  | { op: "quote"; request: Wire<AggregatorQuoteRequest>; deadline: number }
  | { op: "route"; request: Wire<AggregatorRouteRequest>; deadline: number };

export type AggregatorJobResult = Wire<AggregatorQuote> | Wire<AggregatorRoute>;

const NO_ROUTE = "no-route:";
const UNAVAILABLE = "aggregator-unavailable:";
const EXPIRED = "expired:";

const toWire = <T extends object>(value: T): Wire<T> =>
  Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v])) as Wire<T>;

function quoteFromWire(q: Wire<AggregatorQuote>): AggregatorQuote {
  return { ...q, amountIn: BigInt(q.amountIn), amountOut: BigInt(q.amountOut) };
}

function routeFromWire(r: Wire<AggregatorRoute>): AggregatorRoute {
  return { ...quoteFromWire(r), to: r.to as Address, data: r.data as Hex, minAmountOut: BigInt(r.minAmountOut), recipient: r.recipient as Address };
}

/** The budget is spent: 429 BUSY with a Retry-After. */
export function budgetBusy(waitMs: number): ApiError {
  return new ApiError("BUSY", `The aggregator route budget is spent: no turn within ${waitMs} ms, retry shortly`, undefined, { retryAfterSeconds: 1 });
}

/**
 * An Aggregator whose every call is a job of the `aggregator` queue (the budget). `waitMs` is how long a
 * call waits for its turn and answer: past it, ApiError BUSY.
 */
export function queuedAggregator(jobs: JobClient, address: Address, waitMs: number, caller?: Caller): Aggregator {
  async function call<R>(data: Omit<AggregatorJobData, "deadline">): Promise<R> {
    const deadline = Date.now() + waitMs;
    try {
      return await jobs.run<R>(
        AGGREGATOR_QUEUE,
        data.op,
        { ...data, deadline },
        { timeoutMs: waitMs, keepResultSeconds: 30, caller, share: AGGREGATOR_SHARE, removeWhenGone: true },
      );
    } catch (error) {
      if (error instanceof JobTimeoutError && (await jobs.workers(AGGREGATOR_QUEUE).catch(() => 0)) === 0) {
        // No worker to run it: not a spent budget but an outage (503, not 429).
        throw new ApiError("UNAVAILABLE", "No aggregator worker is running: retry shortly");
      }
      if (error instanceof QueueBusyError || error instanceof JobTimeoutError) throw budgetBusy(waitMs);
      if (error instanceof CallerGoneError) throw new ApiError("UNAVAILABLE", "The request was cancelled by its client");
      if (error instanceof JobFailedError) {
        const message = error.message;
        if (message.includes(NO_ROUTE)) {
          const [tokenIn, tokenOut] = message.slice(message.indexOf(NO_ROUTE) + NO_ROUTE.length).split(",");
          throw new NoRouteError(tokenIn as Address, tokenOut as Address);
        }
        if (message.includes(EXPIRED)) throw budgetBusy(waitMs);
        throw new AggregatorUnavailableError(message.replace(UNAVAILABLE, ""));
      }
      throw error;
    }
  }
  return {
    address,
    quote: async (request) => quoteFromWire(await call<Wire<AggregatorQuote>>({ op: "quote", request: toWire(request) })),
    route: async (request) => routeFromWire(await call<Wire<AggregatorRoute>>({ op: "route", request: toWire(request) })),
  };
}

/** What a worker of the queue does with one job: drop it when its caller gave up, else call `aggregator`. */
export async function runAggregatorJob(aggregator: Aggregator | undefined, data: AggregatorJobData, now = Date.now()): Promise<AggregatorJobResult> {
  if (now > data.deadline) throw new Error(`${EXPIRED} the caller stopped waiting`);
  if (!aggregator) throw new Error(`${UNAVAILABLE} no aggregator is deployed on this chain`);
  const base = { tokenIn: data.request.tokenIn as Address, tokenOut: data.request.tokenOut as Address, amountIn: BigInt(data.request.amountIn) };
  try {
    if (data.op === "quote") return toWire(await aggregator.quote(base));
    const { recipient, slippageBps } = data.request;
    return toWire(await aggregator.route({ ...base, recipient: recipient as Address, slippageBps }));
  } catch (error) {
    if (error instanceof NoRouteError) throw new Error(`${NO_ROUTE}${error.tokenIn},${error.tokenOut}`);
    throw new Error(`${UNAVAILABLE}${(error as Error).message}`);
  }
}

/** The aggregator through the route budget when the app has a job client, else called directly. */
export function budgetedAggregator(deps: { jobs?: JobClient; client?: PublicClient; deployments: Deployments }, caller?: Caller): Aggregator {
  if (!deps.client) throw new ApiError("UNAVAILABLE", "The chain RPC is not configured");
  const direct = directAggregator(deps.client, deps.deployments);
  if (!direct) throw new ApiError("UNAVAILABLE", "No swap aggregator is deployed on this chain");
  return deps.jobs ? queuedAggregator(deps.jobs, direct.address, config.AGGREGATOR_WAIT_MS, caller) : direct;
}
