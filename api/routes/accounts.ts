// GET /v1/agent/accounts/{owner}: every position of a wallet (the answer: usecases/answers/accounts.ts, served through the read cache by usecases/answers/account-body.ts).
import { accountAnswerBody } from "../../usecases/answers/account-body.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { JSON_HEADERS } from "../envelope.js";
import { getAccount } from "../../contract/operations/accounts.js";
import { createRouter } from "../router.js";

export const accountRoutes = (deps: Pick<AppDeps, "reads" | "deployments" | "now" | "readCache">) =>
  createRouter<AppEnv>().openapi(getAccount, async (c) => {
    const { owner } = c.req.valid("param");
    const { closedDays } = c.req.valid("query");
    return c.body(await accountAnswerBody(deps, owner, closedDays), 200, JSON_HEADERS) as never;
  });
