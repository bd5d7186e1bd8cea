// How Postgres, Redis, BullMQ and the chain RPC say they cannot serve: the API answers these 503
// UNAVAILABLE (api/errors.ts) and the workers retry them rather than fail the job.

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  // postgres.js
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

// Postgres SQLSTATEs of an unusable server: 08xxx connection exceptions, 57P01-57P03 shutdown and
// start-up, 53300 too many connections.
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

const UNAVAILABLE_NAMES = new Set([
  "MaxRetriesPerRequestError", // ioredis
  // viem: the chain's RPC does not answer
  "HttpRequestError",
  "TimeoutError",
  "WebSocketRequestError",
  "SocketClosedError",
]);

const UNAVAILABLE_MESSAGES = [
  /^Connection is closed\.?$/, // ioredis
  /Stream isn't writeable and enableOfflineQueue options is false/, // ioredis, offline
  /Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
  /^Redis connection is not ready$/, // rate-limiter-flexible
  /^Redis at \S+ is not reachable$/, // the job client (adapters/queue/request-reply.ts)
  /^Connection terminated/, // pg
  /timeout exceeded when trying to connect/, // pg-pool
  /^write (EPIPE|ECONNRESET)/,
];

/** True when `error` (or a cause of it) says Postgres, Redis or the chain RPC cannot be reached. */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return isConnectionError(error.cause, depth + 1);
}

/**
 * Postgres refused a text value for its bytes (SQLSTATE 22021, character_not_in_repertoire: a NUL, or
 * invalid UTF-8). The service never writes such text itself; only a request's value can carry it.
 */
export function isUnstorableText(error: unknown): boolean {
  return error instanceof Error && error.name === "PostgresError" && (error as { code?: unknown }).code === "22021";
}

/**
 * A view of the index is missing (SQLSTATE 42P01 naming a relation of `viewsSchema`): the indexer has
 * not made its views yet, or dropped them (a devnet restart). Transient, like a dependency that is down.
 */
export function isMissingView(error: unknown, viewsSchema: string): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "42P01" && error.message.includes(`"${viewsSchema}.`);
}

/**
 * Postgres chose this statement as a deadlock's victim or a serialization failure (SQLSTATE 40P01, 40001):
 * nothing was written, and the same request a moment later succeeds.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = error instanceof Error && error.name === "PostgresError" ? (error as { code?: unknown }).code : undefined;
  return code === "40P01" || code === "40001";
}
