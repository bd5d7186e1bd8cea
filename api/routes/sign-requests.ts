// GET /v1/agent/sign-requests/{id}: the stored prepare answer, until it expires.
// The id is the sign link's secret: it is only a lookup key (never logged; request-log redacts it)
// and an unknown, malformed or expired id all answer the same 404.
import { createRoute, z } from "@hono/zod-openapi";
import { signRequestAnswer } from "../../usecases/answers/sign-requests.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { SignRequest } from "../../contract/sign-request.js";
import { createRouter } from "../router.js";

const getSignRequest = createRoute({
  method: "get",
  path: "/sign-requests/{id}",
  tags: ["Sign requests"],
  summary: "A stored prepare answer",
  description: "The bundle as prepared, with its walletSendCalls. 404 when unknown or expired (10 minutes after prepare).",
  request: { params: z.object({ id: z.string().max(128).openapi({ description: "The id from the sign link" }) }) },
  responses: {
    200: okResponse(SignRequest, "The stored sign request"),
    ...errorResponses("NOT_FOUND"),
  },
});

export const signRequestRoutes = (deps: Pick<AppDeps, "db" | "now">) =>
  createRouter<AppEnv>().openapi(getSignRequest, async (c) => ok(c, await signRequestAnswer(deps.db, c.req.valid("param").id, deps.now())));
