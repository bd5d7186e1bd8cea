// The strategy finder, public routes under /v1 (spec: "Public routes outside /v1/agent"):
//   GET  /strategy-finder                 the board: past results per style over a window, beside holding
//   GET  /strategy-finder/track-record    the board's daily picks, followed on paper for 7 days
//   GET  /strategy-finder/attempts        runs made with a wallet's signed-in owner session
//   POST /strategy-finder/backtest        any token on demand (a `backtest` job); every run is logged
//   GET  /strategy-finder/{token}         every style for one token
// The board is a repeatable job's stored result: 503 SCAN_PREPARING before the first one.
// Declared in contract/operations/strategy-finder.ts.
import type { Context } from "hono";
import { doableNow } from "../../usecases/backtest-runs/finder-doable.js";
import { attemptsAnswer, boardAnswer, tokenAnswer, trackRecordAnswer } from "../../usecases/backtest-runs/finder-answers.js";
import { periodDays, runFinderBacktest } from "../../usecases/backtest-runs/finder-run.js";
import { sessionOwner } from "../../usecases/sessions.js";
import { finderAttempts, finderBacktest, finderBoard, finderTokenPage, finderTrackRecord } from "../../contract/operations/strategy-finder.js";
import { withCaller } from "../caller.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { bearerToken } from "../middleware/session.js";
import { createRouter } from "../router.js";

export const strategyFinderRoutes = (deps: AppContext) =>
  createRouter<AppEnv>()
    .openapi(finderBoard, async (c) => {
      const q = c.req.valid("query");
      return ok(
        c,
        await boardAnswer(
          deps.db,
          { budgetUsd: q.budget, periodDays: periodDays(q.period), token: q.token, category: q.category, strategy: q.strategy },
          deps.index?.scanChain(),
          await doableNow(deps),
        ),
      );
    })
    .openapi(finderTrackRecord, async (c) => ok(c, await trackRecordAnswer(deps.db, deps.index?.scanChain())))
    .openapi(finderAttempts, async (c) => {
      const q = c.req.valid("query");
      return ok(c, await attemptsAnswer(deps.db, q.kind, q.value));
    })
    .openapi(finderBacktest, async (c) => {
      // Counted only for the owner of the session it carries: a body's identity proves nothing.
      const token = bearerToken(finderBacktest, c as unknown as Context);
      const owner = token ? await sessionOwner(deps.db, token, deps.now()) : null;
      return ok(c, await runFinderBacktest(withCaller(c as unknown as Context, deps), c.req.valid("json"), owner));
    })
    .openapi(finderTokenPage, async (c) => {
      const { token } = c.req.valid("param");
      const q = c.req.valid("query");
      return ok(c, await tokenAnswer(deps.db, token, periodDays(q.period), q.budget, deps.index?.scanChain()));
    });
