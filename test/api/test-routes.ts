// Routes that exist only in tests, to exercise the cross-cutting parts (validation, envelopes,
// errors) the way product routes will use them.
import { createRoute, z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { AppEnv, RouteGroup } from "../../api/deps.js";
import { ok } from "../../api/envelope.js";
import { Address, AgentTag, Amount, errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../../api/router.js";
import { ApiError } from "../../domain/errors.js";

const EchoBody = z.object({
  owner: Address,
  amount: Amount,
  agentTag: AgentTag.optional(),
  tokens: z
    .array(z.object({ token: z.string(), weightPct: z.number().min(1).optional() }))
    .min(1)
    .max(8)
    .optional(),
});

const echo = createRoute({
  method: "post",
  path: "/test/echo",
  request: { body: { required: true, content: { "application/json": { schema: EchoBody } } } },
  responses: {
    200: okResponse(z.object({ owner: z.string(), amount: z.string(), big: z.string(), at: z.string() }), "Echo"),
    ...errorResponses(),
  },
});

const list = createRoute({
  method: "get",
  path: "/test/list",
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(10).default(5) }) },
  responses: { 200: okResponse(z.object({ limit: z.number() }), "List"), ...errorResponses() },
});

const accounts = createRoute({
  method: "get",
  path: "/test/accounts/{owner}",
  request: { params: z.object({ owner: Address }) },
  responses: { 200: okResponse(z.object({ owner: z.string() }), "Account"), ...errorResponses() },
});

const refused = createRoute({
  method: "get",
  path: "/test/refused",
  responses: { 200: okResponse(z.object({}), "Never"), ...errorResponses("FIRST_TOO_SMALL") },
});

export const testRoutes =
  (options: { deadDb?: Kysely<any> } = {}): RouteGroup =>
  () => {
    const app = createRouter<AppEnv>()
      .openapi(echo, (c) => {
        const body = c.req.valid("json");
        return ok(c, { owner: body.owner, amount: body.amount, big: 10n ** 30n, at: new Date("2025-01-02T03:04:05.000Z") });
      })
      .openapi(list, (c) => ok(c, { limit: c.req.valid("query").limit }))
      .openapi(accounts, (c) => ok(c, { owner: c.req.valid("param").owner }))
      .openapi(refused, () => {
        throw new ApiError("FIRST_TOO_SMALL", "part 2 is below its minimum of 5000000 USDG base units", { part: 2, minimum: "5000000", unit: "USDG" });
      });
    app.get("/test/ping", (c) => ok(c, { pong: true }));
    app.get("/test/boom", () => {
      throw new Error("database password=hunter2 leaked in a message");
    });
    app.get("/test/pg-down", async (c) => {
      await sql`select 1`.execute(options.deadDb!);
      return ok(c, {});
    });
    return app;
  };
