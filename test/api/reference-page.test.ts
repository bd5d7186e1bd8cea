// The reference page in a real browser: Debian's Chromium (headless, through playwright-core) opens
// /v1/agent/reference served by the API on a real port. Swagger UI, loaded from the API itself,
// renders the operations of the OpenAPI document (their summaries appear, an operation opens and
// shows its parameters) with no console error, no failed request, no request to another origin and
// no Content-Security-Policy violation. A screenshot goes to test/.artifacts/.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../adapters/db/api-schema.js";
import { ARTIFACTS, CHROMIUM_LAUNCH } from "../helpers/chromium.js";
import { freePort } from "../helpers/stack.js";
import { connectRedis, createTestDatabase, deleteKeys, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
const prefix = randomPrefix();
let server: Server;
let base: string;
let browser: BrowserContext;
let userDataDir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const t = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl` }, baseUrl: base });
  server = serve({ fetch: t.app.fetch, port, hostname: "127.0.0.1" }) as Server;
  mkdirSync(ARTIFACTS, { recursive: true });
  userDataDir = mkdtempSync(join(tmpdir(), "reference-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, { ...CHROMIUM_LAUNCH, viewport: { width: 1200, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

describe("GET /v1/agent/reference in Chromium", () => {
  it("renders the operations with Swagger UI from this origin, with no console error and no CSP violation", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || /Content Security Policy|Refused to/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("request", (r) => requests.push(r.url()));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
    });
    // Violations the console might word differently: the page's own securitypolicyviolation events.
    await page.addInitScript(
      'window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));',
    );

    const response = await page.goto(`${base}/v1/agent/reference`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'nonce-");
    // Swagger UI has loaded openapi.json and rendered the operations, by their summaries.
    await page.locator(".opblock-summary-description", { hasText: "Changes of a wallet since a cursor" }).waitFor({ timeout: 30_000 });
    expect(await page.locator(".opblock").count()).toBeGreaterThan(20);
    await expect(page.locator(".info .title").textContent()).resolves.toContain("Agent interface");
    // An operation opens and shows its parameters.
    await page.locator(".opblock-summary", { hasText: "Changes of a wallet since a cursor" }).first().click();
    await page.locator(".parameters .parameter__name", { hasText: "waitMs" }).waitFor({ timeout: 10_000 });

    await page.screenshot({ path: join(ARTIFACTS, "reference-page.png"), fullPage: false });
    const csp = (await page.evaluate("window.__csp")) as string[];
    expect(csp).toEqual([]);
    expect(problems).toEqual([]);
    // Everything came from this origin: the page, Swagger UI's script and stylesheet, openapi.json.
    expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith("data:"))).toEqual([]);
    expect(requests).toEqual(expect.arrayContaining([expect.stringContaining("/v1/agent/reference/swagger-ui-bundle.js"), `${base}/v1/agent/openapi.json`]));
    await page.close();
  });
});
