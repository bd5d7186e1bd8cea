// GET /v1/agent/sign-requests/{id}: the stored prepare answer, until it expires.
// The id is the sign link's secret: it is only a lookup key (never logged; request-log redacts it)
// and an unknown, malformed or expired id all answer the same 404.
import { signRequestAnswer } from "../../usecases/answers/sign-requests.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { getSignRequest } from "../../contract/operations/sign-requests.js";
import { createRouter } from "../router.js";

export const signRequestRoutes = (deps: Pick<AppDeps, "db" | "now">) =>
  createRouter<AppEnv>().openapi(getSignRequest, async (c) => ok(c, await signRequestAnswer(deps.db, c.req.valid("param").id, deps.now())));
