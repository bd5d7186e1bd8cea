// GET /v1/agent/accounts/{owner}: every position of a wallet (the answer: usecases/answers/accounts.ts, served through the read cache by usecases/answers/account-body.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { accountAnswerBody } from "../../usecases/answers/account-body.js";
import { DEFAULT_CLOSED_DAYS } from "../../usecases/answers/accounts.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { JSON_HEADERS } from "../envelope.js";
import { Account } from "../../contract/accounts.js";
import { Address, errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../router.js";

const getAccount = createRoute({
  method: "get",
  path: "/accounts/{owner}",
  tags: ["Accounts"],
  summary: "Positions of a wallet",
  description: [
    "Everything the wallet holds with the service: vault shares (per vault, valued in the vault's asset and in USD as the vault converts them now, at the token's latest price), queued deposits and withdrawals with their queue ids and states, limit orders, grids, ladder strategies with their parts, and basket tokens.",
    `Open items are always listed; items that ended (settled, refunded, cancelled or completed queue entries; closed orders, grids and ladder strategies) only from the last \`closedDays\` days (default ${DEFAULT_CLOSED_DAYS}), newest first, at most 200 of each kind.`,
    "An owner with nothing answers 200 with empty lists. Amounts come in pairs: `x` in whole units of its token and `xUnits` in base units. Addresses are checksummed, times ISO 8601 UTC.",
    "To follow changes from here, take an activity baseline (GET /v1/agent/accounts/{owner}/activity) and poll it.",
  ].join("\n\n"),
  request: {
    params: z.object({ owner: Address.openapi({ description: "The wallet (0x followed by 40 hex characters)" }) }),
    query: z.object({
      closedDays: z.coerce
        .number()
        .int()
        .min(0)
        .max(30)
        .default(DEFAULT_CLOSED_DAYS)
        .openapi({ description: `Days of ended items to list (0-30, default ${DEFAULT_CLOSED_DAYS}); 0 lists open items only`, example: DEFAULT_CLOSED_DAYS }),
    }),
  },
  responses: {
    200: okResponse(Account, "The wallet's positions"),
    ...errorResponses(),
  },
});

export const accountRoutes = (deps: Pick<AppDeps, "reads" | "deployments" | "now" | "readCache">) =>
  createRouter<AppEnv>().openapi(getAccount, async (c) => {
    const { owner } = c.req.valid("param");
    const { closedDays } = c.req.valid("query");
    return c.body(await accountAnswerBody(deps, owner, closedDays), 200, JSON_HEADERS) as never;
  });
