// GET /sign/{id}: the sign page, a web page for the person who owns the wallet (not part of the JSON
// API, so not in the OpenAPI document). It shows each step in words, the expiry, and while the request
// is live a button whose script sends the calls from the injected wallet (api/sign-page/script.ts).
// An unknown id answers 404 and an expired one 410, both as pages that say so; neither carries calldata.
import { Hono, type Context } from "hono";
import { signPageView } from "../../usecases/answers/sign-requests.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { renderSignPage, renderUnknownPage } from "../sign-page/html.js";
import { SIGN_PAGE_CSP } from "../sign-page/script.js";

function html(c: Context<AppEnv>, body: string, status: 200 | 404 | 410) {
  c.header("Content-Security-Policy", SIGN_PAGE_CSP);
  // The id in the URL is the request's only secret: never sent on as a referrer, never cached.
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  return c.html(body, status);
}

export const signPageRoutes = (deps: Pick<AppDeps, "db" | "now" | "deployments" | "client">) =>
  new Hono<AppEnv>().get("/sign/:id", async (c) => {
    const view = await signPageView(deps.db, deps.deployments, c.req.param("id"), deps.now(), deps.client);
    if (!view) return html(c, renderUnknownPage(), 404);
    return html(c, renderSignPage(view), view.secondsLeft > 0 ? 200 : 410);
  });
