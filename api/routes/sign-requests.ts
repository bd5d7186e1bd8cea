// GET /v1/agent/sign-requests/{id}: the stored prepare answer, until it expires.
// The id is the sign link's secret: it is only a lookup key (never logged; request-log redacts it)
// and an unknown, malformed or expired id all answer the same 404.
import { createRoute, z } from "@hono/zod-openapi";
import { getAddress } from "viem";
import { findLiveSignRequest } from "../../adapters/db/sign-requests.js";
import { ApiError } from "../../domain/errors.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { SignRequest } from "../../contract/sign-request.js";
import { createRouter } from "../create-router.js";

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
  createRouter<AppEnv>().openapi(getSignRequest, async (c) => {
    const row = await findLiveSignRequest(deps.db, c.req.valid("param").id, deps.now());
    if (!row) throw new ApiError("NOT_FOUND", "unknown or expired sign request");
    return ok(c, {
      ...(row.bundle as { walletSendCalls: z.infer<typeof SignRequest>["walletSendCalls"] }),
      id: row.id,
      kind: row.kind,
      owner: getAddress(row.owner),
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
    });
  });
