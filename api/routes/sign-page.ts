// GET /sign/{id}: the sign page, a web page for the person who owns the wallet (not part of the JSON
// API, so not in the OpenAPI document). It shows each step in words, the expiry, and while the request
// is live a button whose script sends the calls from the injected wallet (api/sign-page/script.ts).
// An unknown id answers 404 and an expired one 410, both as pages that say so; neither carries calldata.
import { Hono, type Context } from "hono";
import { getAddress, isAddress, type Address } from "viem";
import { describeSteps } from "../../domain/bundles/describe.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { renderSignPage, renderUnknownPage } from "../sign-page/html.js";
import { findSignRequest } from "../sign-page/load.js";
import { namesFromDeployments } from "../sign-page/names.js";
import { SIGN_PAGE_CSP } from "../sign-page/script.js";

type StoredBundle = {
  walletSendCalls?: { calls?: { to: string; data: string; value: string }[] };
  steps?: { to: string; data: string }[];
  params?: { account?: unknown };
};

function html(c: Context<AppEnv>, body: string, status: 200 | 404 | 410) {
  c.header("Content-Security-Policy", SIGN_PAGE_CSP);
  // The id in the URL is the request's only secret: never sent on as a referrer, never cached.
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  return c.html(body, status);
}

export const signPageRoutes = (deps: Pick<AppDeps, "db" | "now" | "deployments">) =>
  new Hono<AppEnv>().get("/sign/:id", async (c) => {
    const row = await findSignRequest(deps.db, c.req.param("id"));
    if (!row) return html(c, renderUnknownPage(), 404);
    const bundle = row.bundle as StoredBundle;
    const calls = bundle.walletSendCalls?.calls ?? bundle.steps ?? [];
    const owner = getAddress(row.owner);
    const account = typeof bundle.params?.account === "string" && isAddress(bundle.params.account) ? (bundle.params.account as Address) : undefined;
    const secondsLeft = Math.floor((row.expires_at.getTime() - deps.now().getTime()) / 1000);
    const live = secondsLeft > 0;
    const page = renderSignPage({
      id: row.id,
      kind: row.kind,
      owner,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      secondsLeft,
      steps: describeSteps(calls, namesFromDeployments(deps.deployments, owner, account)),
      walletSendCalls: live ? bundle.walletSendCalls : undefined,
    });
    return html(c, page, live ? 200 : 410);
  });
