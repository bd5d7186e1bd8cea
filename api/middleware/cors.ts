// CORS, deliberately open: any origin may GET/POST /v1 routes, without credentials. Agents and
// browser tools call from anywhere; the API sets no cookies and its only credential (the
// report-card session) is an Authorization bearer token that a browser never attaches on its own,
// so a foreign page can do nothing with CORS that it could not do with its own token. Credentials
// stay off so no ambient browser state is ever sent.
//
// Preflights go to Hono's cors middleware. Other requests get their two headers before the route
// runs (setResponseHeader): Hono's middleware sets them on `c.res` instead, which makes Hono copy
// the route's answer into a new Response (body stream and all) on every request.
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { setResponseHeader } from "./response-header.js";

// x402: a browser agent reads the payment terms and the settlement, and sends its payment.
const EXPOSE_HEADERS = ["Retry-After", "X-Request-Id", "RateLimit", "RateLimit-Policy", "PAYMENT-REQUIRED", "PAYMENT-RESPONSE"];

export function openCors(): MiddlewareHandler {
  const preflight = cors({
    origin: "*",
    allowMethods: ["GET", "POST"],
    allowHeaders: ["Content-Type", "Authorization", "PAYMENT-SIGNATURE"],
    exposeHeaders: EXPOSE_HEADERS,
    credentials: false,
    maxAge: 600,
  });
  const expose = EXPOSE_HEADERS.join(",");
  return (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    setResponseHeader(c, "Access-Control-Allow-Origin", "*");
    setResponseHeader(c, "Access-Control-Expose-Headers", expose);
    return next();
  };
}
