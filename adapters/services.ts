// Postgres and Redis are required: a process that needs one checks it at start, and when it is
// unreachable says so in one line (the URL it tried, and how to set it) and exits non-zero. The chain
// is checked too, but only for its id: money moves on what is built against it.
import { connect } from "node:net";
import { CHAIN_ID } from "../domain/chain.js";
import { config, redactUrl } from "./config.js";

/** Opens a TCP connection to host:port and closes it. Resolves null when it connects, else the reason. */
export function probeTcp(host: string, port: number, timeoutMs = 2000): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | null) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer in ${timeoutMs / 1000} s`));
    socket.once("connect", () => done(null));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/** Host and port of a service URL, with the service's default port. */
export function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  // An empty host (postgresql:///db) means a local socket for libpq; loopback is the closest probe.
  return { host: hostname.replace(/^\[|\]$/g, "") || "127.0.0.1", port: port ? Number(port) : defaultPort };
}

async function problem(name: string, url: string, defaultPort: number, envVar: string): Promise<string | null> {
  const { host, port } = hostPort(url, defaultPort);
  const reason = await probeTcp(host, port);
  return reason === null ? null : `${name} is unreachable at ${redactUrl(url)} (${reason}) — start it, or set ${envVar}`;
}

function exitWith(problems: (string | null)[]): void {
  const lines = problems.filter((p): p is string => p !== null);
  if (lines.length === 0) return;
  for (const line of lines) console.error(line);
  process.exit(1);
}

/** With Sentinel: null when any sentinel accepts connections, else the line that names them all. */
async function sentinelProblem(sentinels: { host: string; port: number }[]): Promise<string | null> {
  const reasons = await Promise.all(sentinels.map(({ host, port }) => probeTcp(host, port)));
  if (reasons.some((r) => r === null)) return null;
  const tried = sentinels.map(({ host, port }, i) => `${host}:${port} (${reasons[i]})`).join(", ");
  return `Redis Sentinel is unreachable at ${tried} — start them, or set REDIS_SENTINELS`;
}

/** Checks the configured services (in parallel) and exits with one line per unreachable one. */
export async function requireServices(need: { postgres: boolean; redis: boolean }): Promise<void> {
  const sentinel = config.REDIS_SENTINEL;
  exitWith(
    await Promise.all([
      need.postgres ? problem("Postgres", config.DATABASE_URL, 5432, "DATABASE_URL") : null,
      !need.redis ? null : sentinel ? sentinelProblem(sentinel.sentinels) : problem("Redis", config.REDIS_URL, 6379, "REDIS_URL"),
    ]),
  );
}

/** One JSON-RPC request to `url`: the answer's `result` and `error`, with the HTTP status. */
async function rpcRequest(url: string, method: string, params: unknown[], timeoutMs: number) {
  // fetch refuses credentials in a URL: they go as basic auth, as viem's transport sends them.
  const target = new URL(url);
  const auth = target.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString("base64")}`
    : undefined;
  target.username = target.password = "";
  const response = await fetch(target, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const { result, error } = (await response.json()) as { result?: unknown; error?: { message?: string } };
  return { status: response.status, result, error };
}

const reasonOf = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;

/** eth_chainId at `url`: the id, or why it could not be read (no answer, or not a chain id). */
export async function readChainId(url: string, timeoutMs = 3000): Promise<{ chainId: number } | { unread: string }> {
  try {
    const { status, result } = await rpcRequest(url, "eth_chainId", [], timeoutMs);
    if (typeof result !== "string" || !/^0x[0-9a-f]{1,16}$/i.test(result)) return { unread: `HTTP ${status}, no chain id in the answer` };
    return { chainId: Number(BigInt(result)) };
  } catch (error) {
    return { unread: reasonOf(error) };
  }
}

/**
 * Null when the RPC at `url` answers `debug_traceBlockByNumber` with the `callTracer` (what Ponder's call
 * traces read, CALL_TRACES=on), else why not. Asked of the latest block: a list of transaction traces.
 */
export async function callTracerProblem(url: string, timeoutMs = 10_000): Promise<string | null> {
  try {
    const { error, result } = await rpcRequest(url, "debug_traceBlockByNumber", ["latest", { tracer: "callTracer" }], timeoutMs);
    if (Array.isArray(result)) return null;
    return error?.message ?? "no list of traces in the answer";
  } catch (error) {
    return reasonOf(error);
  }
}

/**
 * Exits with one line when the RPC at `url` answers a chain id other than CHAIN_ID. An RPC that does not
 * answer is left to each process's own behaviour (the API serves reads without it): the reason is returned.
 */
export async function requireChain(url: string): Promise<string | null> {
  const read = await readChainId(url);
  if ("unread" in read) return `the chain id of the RPC at ${redactUrl(url)} could not be read (${read.unread})`;
  if (read.chainId !== CHAIN_ID) {
    exitWith([`The RPC at ${redactUrl(url)} is on chain ${read.chainId}, not ${CHAIN_ID} — point RPC_URL at a chain ${CHAIN_ID} node`]);
  }
  return null;
}
