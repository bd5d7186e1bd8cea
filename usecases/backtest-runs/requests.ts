// What the backtest and planner routes ask for: the live fees from the chain, the normalised job inputs,
// a run through the worker queue (or in this process without one), the latest scans as answers. Runs
// past the free window are paid (usecases/payments/x402.ts).
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import type { PublicClient } from "viem";
import type { GridBacktestBody, GridTokensQuery, LadderBacktestBody, LadderTokensQuery } from "../../contract/backtests.js";
import type { Database } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Caller, JobClient } from "../../adapters/queue/request-reply.js";
import type { ServiceChainState, ServiceChainStateReader } from "../../adapters/chain/service-state.js";
import { breakEvenGap } from "../../domain/backtest/ranges.js";
import { ApiError } from "../../domain/errors.js";
import { asOfBucket, backtestThroughJob, type BacktestInputs, type BacktestJobData, type BacktestKind } from "./jobs.js";
import { runBacktest, type BacktestOutputs } from "./run.js";
import { checkReplayable } from "./answers.js";
import { readScan, scanAnswer, type GridScanPayload, type LadderScanPayload } from "./scans.js";

/** What a backtest request needs; the API's deps have it all. */
export type BacktestDeps = {
  db: Kysely<Database>;
  reads: Kysely<Projections>;
  deployments: Deployments;
  client?: PublicClient;
  /** The chain's live fees (one cached reader per app: adapters/chain/service-state.ts). */
  chainState: ServiceChainStateReader;
  jobs?: JobClient;
  now: () => Date;
  /** Who waits (the API's request): the job counts against that client's share of the queue. */
  caller?: Caller;
};

/** The live fees, or 503 UNAVAILABLE when the chain cannot be read and no earlier read is known. */
export async function liveState(deps: BacktestDeps): Promise<ServiceChainState> {
  const read = await deps.chainState();
  const state = read.ok ? read.state : read.lastGood;
  if (!state) throw new ApiError("UNAVAILABLE", "Cannot read the live strategy fees from the chain now: retry shortly");
  return state;
}

/** The live fee of the grid strategy, the ladder strategy (the grid's when none) or the limit-order hook. */
export function feeOf(state: ServiceChainState, which: "grid" | "ladder" | "hook"): number {
  const part = which === "grid" ? state.gridStrategy : which === "ladder" ? (state.ladderStrategy ?? state.gridStrategy) : state.limitOrderHook;
  if (!part) throw new ApiError("UNAVAILABLE", `The ${which === "hook" ? "limit-order hook" : `${which} strategy`} is not deployed on this chain`);
  return part.feeBps;
}

/** Runs a backtest kind through the worker queue, or here without one. */
export async function runKind<K extends BacktestKind>(deps: BacktestDeps, kind: K, input: BacktestInputs[K]): Promise<BacktestOutputs[K]> {
  const data = { kind, input, asOf: asOfBucket(deps.now()) } as BacktestJobData;
  // A job's result crosses Redis as JSON; each kind's answer is plain JSON data, so it arrives as typed.
  return (await (deps.jobs ? backtestThroughJob(deps.jobs, data, deps.caller) : runBacktest({ reads: deps.reads }, data))) as BacktestOutputs[K];
}

/**
 * Everything a replay (grid or ladder backtest, ranges) can be refused for before it runs: checked before
 * a paid run asks for payment, so a paid request fails only for what arises after payment.
 */
export async function checkReplay(deps: BacktestDeps, input: { token: string; days: number }): Promise<void> {
  await checkReplayable({ reads: deps.reads }, input.token, input.days, asOfBucket(deps.now()));
}

export const gridBacktestInput = (b: z.infer<typeof GridBacktestBody>, state: ServiceChainState): BacktestInputs["grid"] => ({
  token: b.token.toLowerCase(),
  buyPrice: b.buyPrice,
  sellPrice: b.sellPrice,
  amountUsd: b.amountUsd,
  repeat: b.repeat,
  days: b.days,
  feeBps: feeOf(state, "grid"),
});

export const ladderBacktestInput = (b: z.infer<typeof LadderBacktestBody>, state: ServiceChainState): BacktestInputs["ladder"] => ({
  token: b.token.toLowerCase(),
  side: b.side,
  levels: b.levels,
  days: b.days,
  feeBps: feeOf(state, "hook"),
});

/** 422 GAP_TOO_TIGHT when a planner's gap cannot pay back the fee on both trades. */
export function checkGap(gap: number | undefined, feeBps: number) {
  if (gap === undefined || gap > breakEvenGap(feeBps)) return;
  throw new ApiError(
    "GAP_TOO_TIGHT",
    `A gap of ${gap} does not pay back the ${feeBps / 100}% fee on both trades: use more than ${breakEvenGap(feeBps).toFixed(5)}`,
  );
}

/** GET /grid/tokens: the latest grid scan of this chain, good first. */
export async function gridTokensAnswer(db: Kysely<Database>, q: z.infer<typeof GridTokensQuery>, chain?: string) {
  const { payload, at } = await readScan<GridScanPayload>(db, "grid-tokens", "latest", chain);
  const tokens = scanAnswer(payload.tokens, { limit: q.limit, include: q.include, category: q.category, score: (e) => e.averageReturnPct });
  const { asOf, feeBps, days, amountUsd } = payload;
  return { asOf, scannedAt: at.toISOString(), feeBps, days, amountUsd, scanned: payload.tokens.length, tokens };
}

/** GET /ladder/tokens: the latest dip-ladder scan of this chain, good first. */
export async function ladderTokensAnswer(db: Kysely<Database>, q: z.infer<typeof LadderTokensQuery>, chain?: string) {
  const { payload, at } = await readScan<LadderScanPayload>(db, "ladder-tokens", "latest", chain);
  const tokens = scanAnswer(payload.tokens, { limit: q.limit, include: q.include, score: (e) => e.record.averageReturnPct });
  const { asOf, feeBps, amountUsd } = payload;
  return { asOf, scannedAt: at.toISOString(), feeBps, amountUsd, scanned: payload.tokens.length, tokens };
}
