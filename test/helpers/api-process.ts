// The API and the worker as processes of their own (`npm run api`, `npm run worker`), started as an
// operator starts them, over a stack of test/helpers/stack.ts: the stack's chain, database and
// views schema, with an API schema and a Redis prefix of the caller's (so test files never share
// state), a free port, and the environment the caller adds (e.g. RATE_LIMIT_POINTS).
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { connectRedis, deleteKeys } from "../api/support.js";
import postgres from "postgres";
import { API_ENV, API_NODE_FLAGS } from "../../api/node-flags.js";
import { freePort, spawnTs, stopProcess, waitFor, type Stack } from "./stack.js";

export type ServiceProcess = {
  child: ChildProcess;
  /** The process's output lines, prefixed with its name (the last 4,000). */
  log: string[];
  /** True while the process has not exited. */
  alive(): boolean;
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export type ApiProcess = ServiceProcess & { url: string; port: number /** GET this for the API's Prometheus metrics (METRICS_PORT). */; metricsUrl: string };

/** What every API and worker of one deployment share: the API schema and the Redis prefix. */
export type Deployment = { apiSchema: string; redisPrefix: string };

export function newDeployment(): Deployment {
  const tag = randomBytes(5).toString("hex");
  return { apiSchema: `agent_api_t${tag}`, redisPrefix: `agent_test_${tag}` };
}

/** The environment of an API or worker of `deployment` over `stack`. */
export function serviceEnv(stack: Stack, deployment: Deployment, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...stack.env,
    DATABASE_URL: stack.databaseUrl,
    API_SCHEMA: deployment.apiSchema,
    REDIS_PREFIX: deployment.redisPrefix,
    LOG_LEVEL: "info",
    ...extra,
  };
}

function service(child: ChildProcess, log: string[]): ServiceProcess {
  return {
    child,
    log,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: (signal = "SIGTERM") => stopProcess(child, signal),
  };
}

/** `npm run api` on a free port; resolves once GET /health answers 200. */
export async function startApi(
  stack: Stack,
  deployment: Deployment,
  options: { name?: string; env?: Record<string, string>; log?: string[] } = {},
): Promise<ApiProcess> {
  const port = await freePort();
  const metricsPort = await freePort(); // each API's metrics listener on a port of its own
  const log = options.log ?? [];
  const url = `http://127.0.0.1:${port}`;
  const env = { ...API_ENV, PORT: String(port), BASE_URL: url, METRICS_PORT: String(metricsPort), ...options.env };
  const child = spawnTs("api/main.ts", serviceEnv(stack, deployment, env), options.name ?? "api", log, API_NODE_FLAGS);
  const proc = { ...service(child, log), url, port, metricsUrl: `http://127.0.0.1:${env.METRICS_PORT}/metrics` };
  try {
    await waitFor(
      options.name ?? "api",
      async () => {
        if (!proc.alive()) throw new Error("exited");
        return (await fetch(`${url}/health`)).status === 200;
      },
      120_000,
      log,
    );
  } catch (error) {
    await proc.stop("SIGKILL");
    throw error;
  }
  return proc;
}

export type WorkerProcess = ServiceProcess & {
  /** GET these for its health and Prometheus metrics (WORKER_METRICS_PORT). */ healthUrl: string;
  metricsUrl: string;
};

/** `npm run worker`, its health and metrics on a free port; resolves once it logs "worker ready". */
export async function startWorker(
  stack: Stack,
  deployment: Deployment,
  options: { name?: string; env?: Record<string, string>; log?: string[] } = {},
): Promise<WorkerProcess> {
  const log = options.log ?? [];
  const name = options.name ?? "worker";
  const env: Record<string, string> = { WORKER_METRICS_PORT: String(await freePort()), ...options.env };
  const child = spawnTs("workers/main.ts", serviceEnv(stack, deployment, env), name, log);
  const at = `http://${env.METRICS_HOST ?? "127.0.0.1"}:${env.WORKER_METRICS_PORT}`;
  const proc = { ...service(child, log), healthUrl: `${at}/health`, metricsUrl: `${at}/metrics` };
  try {
    await waitFor(
      name,
      () => {
        if (!proc.alive()) throw new Error("exited");
        return log.some((line) => line.startsWith(`${name}| `) && line.includes('"worker ready"'));
      },
      120_000,
      log,
    );
  } catch (error) {
    await proc.stop("SIGKILL");
    throw error;
  }
  return proc;
}

/** Drops the deployment's API schema (from the stack's database) and its Redis keys. */
export async function dropDeployment(stack: Stack, deployment: Deployment, redis?: Redis): Promise<void> {
  const sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop schema if exists "${deployment.apiSchema}" cascade`);
  } finally {
    await sql.end();
  }
  // The deployment's keys go too, through the caller's connection or one of our own (a caller that
  // passed none left its queues' and limits' keys behind).
  const client = redis ?? (await connectRedis());
  try {
    await deleteKeys(client, deployment.redisPrefix);
  } finally {
    if (!redis) client.disconnect();
  }
}
