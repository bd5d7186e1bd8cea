// POST /v1/agent/report-card/session/challenge and POST /v1/agent/report-card/session: sign in with the
// owner wallet (personal_sign) for a one-hour session token that reads the private report card.
// Declared in contract/operations/session.ts.
import type { Context } from "hono";
import { ApiError } from "../../domain/errors.js";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import { postSession, postSessionChallenge } from "../../contract/operations/session.js";
import { SIGN_IN_LIMIT } from "../../contract/session.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { clientIp, clientKey, DEFAULT_RATE_LIMIT, rateLimit } from "../middleware/rate-limit.js";
import { createRouter } from "../router.js";

export const sessionRoutes = (deps: Pick<AppDeps, "db" | "now" | "client" | "baseUrl" | "reportCards" | "redis" | "logger" | "rateLimit">) => {
  const enabled = () => {
    if (deps.reportCards && !deps.reportCards.enabled) throw new ApiError("REPORT_CARDS_DISABLED");
  };
  const base = { ...DEFAULT_RATE_LIMIT, ...deps.rateLimit };
  // By the client's address, never the body's owner: anyone may name any owner.
  const key = (c: Context) => clientKey(clientIp(c, base.trustProxyHops));
  // Each under a policy name of its own: the answer lists it beside the app's "client" (one policy per name).
  const limiter = (name: string, policy: string) =>
    rateLimit({
      redis: deps.redis,
      logger: deps.logger,
      ...SIGN_IN_LIMIT,
      keyPrefix: `${base.keyPrefix}:${name}`,
      trustProxyHops: base.trustProxyHops,
      key,
      name: policy,
    });
  const challengeLimit = limiter("session-challenge", "sign-in-challenge");
  const sessionLimit = limiter("session", "sign-in");
  return createRouter<AppEnv>()
    .openapi(postSessionChallenge, async (c) => {
      enabled();
      const { owner } = c.req.valid("json");
      await challengeLimit(c, async () => {});
      // The message's domain: the public origin (BASE_URL), else the one the request came to.
      return ok(c, await createChallenge(deps.db, { owner, now: deps.now(), origin: deps.baseUrl ?? new URL(c.req.url).origin }));
    })
    .openapi(postSession, async (c) => {
      enabled();
      const body = c.req.valid("json");
      await sessionLimit(c, async () => {});
      return ok(c, await exchangeChallenge(deps.db, { ...body, now: deps.now(), client: deps.client }));
    });
};
