// The backtest jobs: their queue, kinds and normalised inputs, and the API's side (enqueue and await
// the worker's answer, or run in this process when the app has no job client). Identical inputs share
// one job and its cached result: the job id is a hash of the kind, the input, the live fee and the
// 10-minute bucket the answer is as of.
import { createHash } from "node:crypto";
import { ApiError } from "../../domain/errors.js";
import { JobTimeoutError, type Caller, type JobClient } from "../../adapters/queue/request-reply.js";
import { fromJobError } from "../prepare/queued-errors.js";
import { BACKTEST_SHARE } from "../../contract/backtests.js";

export const BACKTEST_QUEUE = "backtest";
export const SCAN_QUEUE = "scan";
/** How long the API waits for a backtest worker. */
export const BACKTEST_TIMEOUT_MS = 20_000;
/** How long a finished backtest answers identical requests. */
export const BACKTEST_CACHE_SECONDS = 600;
/** Answers are as of the start of the current 10-minute bucket (the newest candle's start). */
export const AS_OF_STEP = 600;

export type GridBacktestInput = { token: string; buyPrice: number; sellPrice: number; amountUsd: number; repeat: boolean; days: number; feeBps: number };
export type LadderBacktestInput = { token: string; side: "buy" | "sell"; levels: { price: number; amountUsd: number }[]; days: number; feeBps: number };
export type RangesInput = { token: string; days: number; feeBps: number; amountUsd: number };
export type GridPlanInput = { token: string; amountUsd: number; gap?: number; days: number; feeBps: number };
export type LadderPlanInput = { token: string; amountUsd: number; feeBps: number };
export type FinderBacktestInput = {
  token: string;
  strategy: "grid" | "dip-ladder";
  variant?: "standard" | "tighter" | "wider";
  settings?: { buyPrice?: number; sellPrice?: number; startPrice?: number };
  budgetUsd: number;
  days?: number;
  periodDays?: number;
  feeBps: number;
};

export type BacktestInputs = {
  grid: GridBacktestInput;
  ladder: LadderBacktestInput;
  ranges: RangesInput;
  "grid-plan": GridPlanInput;
  "ladder-plan": LadderPlanInput;
  "finder-backtest": FinderBacktestInput;
};
export type BacktestKind = keyof BacktestInputs;

export type BacktestJobData<K extends BacktestKind = BacktestKind> = { kind: K; input: BacktestInputs[K]; asOf: number };

export const asOfBucket = (now: Date) => Math.floor(now.getTime() / 1000 / AS_OF_STEP) * AS_OF_STEP;

/** Deterministic JSON (sorted keys), so equal inputs hash equal whatever the order of their fields. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The job id of identical requests (BullMQ ids may not hold ':'). */
export function backtestJobId(data: BacktestJobData): string {
  return `bt-${data.kind}-${createHash("sha256").update(canonical(data)).digest("hex").slice(0, 40)}`;
}

/** Runs a backtest through the worker queue; its ApiError comes back as the same code. */
export async function backtestThroughJob<R>(jobs: JobClient, data: BacktestJobData, caller?: Caller): Promise<R> {
  try {
    // A shared job (identical requests) is never removed for one caller that leaves; it is counted per caller.
    return await jobs.run<R>(BACKTEST_QUEUE, data.kind, data, {
      caller,
      share: BACKTEST_SHARE,
      jobId: backtestJobId(data),
      timeoutMs: BACKTEST_TIMEOUT_MS,
      keepResultSeconds: BACKTEST_CACHE_SECONDS,
    });
  } catch (error) {
    if (error instanceof JobTimeoutError) throw new ApiError("UNAVAILABLE", "The backtest worker did not answer in time: retry shortly");
    throw fromJobError(error);
  }
}
