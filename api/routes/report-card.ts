// GET /v1/agent/report-card/{owner} (public, or the owner's session when AGENT_REPORT_CARDS_READS=owner)
// and GET /v1/agent/report-card/{owner}/private (the owner's session): graded from the chain only.
// Declared in contract/operations/report-card.ts.
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../../domain/errors.js";
import { readReportCard } from "../../usecases/report-card/card.js";
import { getPrivateReportCard, getReportCard } from "../../contract/operations/report-card.js";
import type { ReportCard } from "../../contract/report-card.js";
import { SESSION_SECURITY_SCHEME } from "../../contract/session-security.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { requireOwnerSession } from "../middleware/session.js";
import { createRouter } from "../router.js";

/** The stored states and reasons are the schema's (the card maps unsigned filings onto them). */
type Card = z.infer<typeof ReportCard>;

export const reportCardRoutes = (deps: Pick<AppDeps, "db" | "now" | "reportCards">) => {
  const router = createRouter<AppEnv>();
  router.openAPIRegistry.registerComponent("securitySchemes", "session", SESSION_SECURITY_SCHEME);
  const enabled = () => {
    if (deps.reportCards && !deps.reportCards.enabled) throw new ApiError("REPORT_CARDS_DISABLED");
  };
  return router
    .openapi(getReportCard, async (c) => {
      enabled();
      const { owner } = c.req.valid("param");
      if (deps.reportCards?.reads === "owner") await requireOwnerSession(deps, getReportCard, c as Context, owner);
      return ok(c, (await readReportCard(deps.db, { owner, view: "public", agent: c.req.valid("query").agent, now: deps.now() })) as Card);
    })
    .openapi(getPrivateReportCard, async (c) => {
      enabled();
      const { owner } = c.req.valid("param");
      await requireOwnerSession(deps, getPrivateReportCard, c as Context, owner);
      return ok(c, (await readReportCard(deps.db, { owner, view: "private", agent: c.req.valid("query").agent, now: deps.now() })) as Card);
    });
};
