// GET /v1/agent/sign-requests/{id}, declared (served by api/routes/sign-requests.ts; the typed client infers its answer from it).
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { SignRequest } from "../sign-request.js";

export const getSignRequest = createRoute({
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
