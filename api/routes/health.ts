// Process probes, outside /v1 and its rate limit:
// - GET /health: the process is up (200);
// - GET /ready: 200 only when Postgres answers and the indexer has caught up, else 503 UNAVAILABLE.
//   With standbys (DATABASE_READ_URL) it also names each one's lag and where reads go: `reads` is
//   "primary" while every standby lags more than READ_MAX_LAG_MS (the API still answers, from the primary).
//   Not rate limited (a refused probe would take a healthy replica out), so it is answered from a
//   readiness state refreshed at most once a second: a flood of probes costs one query a second.
import { Hono } from "hono";
import { postgresPing } from "../../adapters/db/connect.js";
import { ApiError } from "../../domain/errors.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";

const PROBE_TIMEOUT_MS = 2000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function postgresAnswers(deps: Pick<AppDeps, "db">): Promise<boolean> {
  try {
    await within(postgresPing(deps.db), PROBE_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}

async function indexerCaughtUp(deps: Pick<AppDeps, "indexerReady">): Promise<boolean> {
  try {
    return (await within(Promise.resolve(deps.indexerReady()), PROBE_TIMEOUT_MS)) === true;
  } catch {
    return false;
  }
}

/** How long one readiness check answers every probe. */
export const READY_REFRESH_MS = 1000;

type Readiness = { postgres: boolean; indexer: boolean };

/** The readiness state, checked at most once per READY_REFRESH_MS (by `now`); concurrent probes share one check. */
function readinessState(deps: Pick<AppDeps, "db" | "indexerReady" | "now">) {
  const now = () => deps.now().getTime();
  let checked: { at: number; state: Promise<Readiness> } | undefined;
  return (): Promise<Readiness> => {
    if (!checked || now() - checked.at >= READY_REFRESH_MS) {
      checked = { at: now(), state: Promise.all([postgresAnswers(deps), indexerCaughtUp(deps)]).then(([postgres, indexer]) => ({ postgres, indexer })) };
    }
    return checked.state;
  };
}

/** Where reads go, and each standby's lag in ms (null: not answering), when the API reads standbys. */
function readsOn(targets: AppDeps["readTargets"]) {
  if (!targets) return {};
  const standbys = targets.status().map((s) => ({ name: s.name, lagMs: Number.isFinite(s.lagMs) ? Math.round(s.lagMs) : null, serving: s.serving }));
  return { reads: targets.allLagging() ? "primary" : "standbys", standbys };
}

export const healthRoutes = (deps: Pick<AppDeps, "db" | "indexerReady" | "logger" | "now" | "readTargets">) => {
  const readiness = readinessState(deps);
  return new Hono<AppEnv>()
    .get("/health", (c) => ok(c, { status: "up" }))
    .get("/ready", async (c) => {
      const { postgres, indexer } = await readiness();
      if (postgres && indexer) return ok(c, { status: "ready", postgres, indexer, ...readsOn(deps.readTargets) });
      const waiting = [!postgres && "Postgres does not answer", !indexer && "the indexer is catching up"].filter(Boolean).join("; ");
      throw new ApiError("UNAVAILABLE", `not ready: ${waiting}`);
    });
};
