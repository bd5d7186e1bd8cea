// The strategy finder's public routes under /v1, declared (served by api/routes/strategy-finder.ts).
import { createRoute } from "@hono/zod-openapi";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";
import { BACKTEST_SHARE } from "../backtests.js";
import { errorResponses, okResponse } from "../fields.js";
import { sessionSecurity } from "../session-security.js";
import {
  AttemptsAnswer,
  AttemptsQuery,
  BoardAnswer,
  BoardQuery,
  FINDER_RUNS_PER_CLIENT_PER_DAY,
  FinderBacktestAnswer,
  FinderBacktestBody,
  TokenPageAnswer,
  TokenPageQuery,
  TokenParam,
  TrackRecordAnswer,
} from "../strategy-finder.js";

const TAGS = ["Strategy finder"];
const rules = `\n\n${FILL_RULES}`;
export const finderBoard = createRoute({
  method: "get",
  path: "/strategy-finder",
  tags: TAGS,
  summary: "Past results of strategies and vaults",
  description:
    "Past results over the window (period, 1d-30d, default 7d) of each style: grids (lines picked walk-forward on the window before), the dip ladder, and vaults (a 500 USD deposit at the window start valued now after its fees), each beside holdReturnPct and holdPnlUsd (holding the token, no fees). " +
    "Ranked best first, at most 2 per token and 6 per style, each with its walk-forward test, run parameters for the prepare routes, next steps, and the track record of past picks. " +
    "When the slice (token, category) has nothing positive it widens and says so; when nothing has the window yet, it shows the longest shorter window with results. Computed every 10 minutes; 503 SCAN_PREPARING before the first." +
    rules,
  request: { query: BoardQuery },
  responses: { 200: okResponse(BoardAnswer, "The board"), ...errorResponses("SCAN_PREPARING") },
});

export const finderTrackRecord = createRoute({
  method: "get",
  path: "/strategy-finder/track-record",
  tags: TAGS,
  summary: "How the board's daily picks did",
  description: `Each day's picks (the board's best positive results over 7 days, at most 6), followed on paper for 7 days each with the settings picked, by the same fill rules.${rules}`,
  responses: { 200: okResponse(TrackRecordAnswer, "The picks and their paper results"), ...errorResponses() },
});

export const finderAttempts = createRoute({
  method: "get",
  path: "/strategy-finder/attempts",
  tags: TAGS,
  summary: "A wallet's logged runs",
  description:
    "Counts the wallet's on-demand runs (POST /v1/strategy-finder/backtest) made with its signed-in owner session (`Authorization: Bearer <SESSION_TOKEN>` from POST /v1/agent/report-card/session). Runs without a session, or naming the wallet only in the body's `identity`, are not counted. Run logs are kept 90 days.",
  request: { query: AttemptsQuery },
  responses: { 200: okResponse(AttemptsAnswer, "The count"), ...errorResponses() },
});

export const finderBacktest = createRoute({
  method: "post",
  path: "/strategy-finder/backtest",
  tags: TAGS,
  summary: "Run any token on demand",
  description: `Walk-forward (no settings: the planner's lines each week, \`variant\` picks today's standard, tighter or wider lines for the run parameters; days 21-60, default 30) or with fixed settings over \`period\` (default 7d). Every run is logged; it counts for a wallet (GET /v1/strategy-finder/attempts) only when it carries that wallet's owner session, \`Authorization: Bearer <SESSION_TOKEN>\` (from POST /v1/agent/report-card/session), and then for the session's owner whatever \`identity\` says. Without a live session the run is logged without identity. One client (its address) makes at most ${FINDER_RUNS_PER_CLIENT_PER_DAY} runs in 24 hours (429 RATE_LIMITED with Retry-After), and ${BACKTEST_SHARE} at once (429 BUSY).${rules}`,
  request: { body: { content: { "application/json": { schema: FinderBacktestBody } }, required: true } },
  // Optional: the owner's session makes the run count for the owner (GET /strategy-finder/attempts).
  security: sessionSecurity.optional,
  responses: { 200: okResponse(FinderBacktestAnswer, "The run"), ...errorResponses("BUSY", "NO_CANDLES") },
});

export const finderTokenPage = createRoute({
  method: "get",
  path: "/strategy-finder/{token}",
  tags: TAGS,
  summary: "Every style for one token",
  description: `Every style for one token: the window's result, the chip windows (1d, 7d, 14d, 30d), each walk-forward start's result and the latest start's trades. 503 SCAN_PREPARING before the first board; 422 NO_CANDLES for a token not on the board.${rules}`,
  request: { params: TokenParam, query: TokenPageQuery },
  responses: { 200: okResponse(TokenPageAnswer, "The token's styles"), ...errorResponses("SCAN_PREPARING", "NO_CANDLES") },
});
