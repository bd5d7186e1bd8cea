// 503 UNAVAILABLE with Retry-After on every /v1 route that reads the index while it is not ready
// (adapters/db/index-readiness.ts: before the indexer has made its views, after a devnet restart until the
// new index is built). Without it those reads failed with "relation does not exist": 500 INTERNAL.
// Routes that never read the index pass: the documents, sessions, sign requests and policies.
// Synchronous: the state is polled in the background, never per request.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../domain/errors.js";

/** What a client waits before asking again while the index is built. */
export const INDEX_RETRY_AFTER_SECONDS = 5;

/** Paths under /v1 that answer without the index. */
const WITHOUT_INDEX = [
  "/v1/agent/openapi.json",
  "/v1/agent/skill.md",
  "/v1/agent/llms.txt",
  "/v1/agent/reference",
  "/v1/agent/report-card/session",
  "/v1/agent/sign-requests/",
  "/v1/agent/policies/",
];

export type IndexGateSource = { ready(): boolean; state(): { waiting?: string } };

export function indexGate(source: IndexGateSource): MiddlewareHandler {
  return (c, next) => {
    if (source.ready() || WITHOUT_INDEX.some((prefix) => c.req.path.startsWith(prefix))) return next();
    const waiting = source.state().waiting ?? "the index is not ready";
    throw new ApiError("UNAVAILABLE", `The index is not ready (${waiting}): retry after ${INDEX_RETRY_AFTER_SECONDS} s`, undefined, {
      retryAfterSeconds: INDEX_RETRY_AFTER_SECONDS,
    });
  };
}
