// A job's deadline, seen by the code it runs. The worker runs each job inside a scope (AsyncLocalStorage)
// holding an AbortSignal that fires at the deadline; the Postgres dialect (adapters/db/postgres-js-dialect.ts)
// reads the scope of the caller: it notes what the job waits on (a connection, a statement), cancels the
// statement in flight at the deadline, rolls the job's transaction back and refuses its further statements.
// The job's promise rejects at the deadline whatever it awaits, so a processor that never settles gives
// its slot back, with an error that says what it was waiting on.
import { AsyncLocalStorage } from "node:async_hooks";

export type DeadlineScope = {
  readonly signal: AbortSignal;
  /** What runs under the deadline, e.g. "grading job 42". */
  readonly what: string;
  /** What it awaits now (several at once when it awaits in parallel), with since when. */
  readonly waits: Map<symbol, { on: string; since: number }>;
};

const scopes = new AsyncLocalStorage<DeadlineScope>();

/** The deadline of the code running now, if any. */
export const currentDeadline = (): DeadlineScope | undefined => scopes.getStore();

export class DeadlineExceededError extends Error {
  override name = "DeadlineExceededError";
  constructor(
    readonly what: string,
    readonly deadlineMs: number,
    /** What it was waiting on when the deadline passed. */
    readonly waitingOn: string,
  ) {
    super(`${what} passed its deadline of ${deadlineMs / 1000} s, waiting on ${waitingOn}`);
  }
}

/** The oldest of the scope's waits, worded; none: the job's own code (no statement or connection awaited). */
function describeWaits(scope: DeadlineScope, now: number): string {
  const oldest = [...scope.waits.values()].sort((a, b) => a.since - b.since)[0];
  if (!oldest) return "its own code (no connection or statement awaited)";
  const more = scope.waits.size > 1 ? ` (and ${scope.waits.size - 1} more)` : "";
  return `${oldest.on} for ${((now - oldest.since) / 1000).toFixed(1)} s${more}`;
}

/**
 * Runs `fn` under a deadline of `ms`: at it the scope's signal aborts (its reason the DeadlineExceededError)
 * and the returned promise rejects with that error, whether or not `fn` ever settles.
 */
export async function runWithDeadline<T>(what: string, ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const scope: DeadlineScope = { signal: controller.signal, what, waits: new Map() };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceededError(what, ms, describeWaits(scope, Date.now()));
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([scopes.run(scope, () => fn(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Awaits `promise` as a wait of the current scope on `on` (e.g. "a connection of pool agent-worker"):
 * the deadline's error names it. `onAbort` runs once if the deadline passes meanwhile (e.g. cancel a statement);
 * the wait itself rejects then, even if `promise` never settles.
 */
export async function waitOn<T>(on: string, promise: Promise<T>, onAbort?: () => void): Promise<T> {
  const scope = scopes.getStore();
  if (!scope) return promise;
  scope.signal.throwIfAborted();
  const key = Symbol(on);
  scope.waits.set(key, { on, since: Date.now() });
  let listener: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    listener = () => {
      onAbort?.();
      reject(scope.signal.reason);
    };
    scope.signal.addEventListener("abort", listener, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    scope.signal.removeEventListener("abort", listener!);
    scope.waits.delete(key);
  }
}
