// The README's first requests (its `curl` lines after the start output) work against what `npm start`
// serves: each line's URL is on the API's default base, and its path and query answer 200 from the app on
// the running stack (devnet + indexer), valid against the served OpenAPI document.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";
import { openStackApp, type StackApp } from "../helpers/stack-app.js";

const stack = inject("stack");
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
/** The base `npm start` says it serves the API at (README's start output, PORT's default). */
const base = /ready: the API at (http:\/\/\S+)/.exec(readme)?.[1];
/** Every `curl -s URL` line in the README's code blocks, quotes removed. */
const urls = [...readme.matchAll(/^curl -s '?(http[^'\s]+)'?$/gm)].map((m) => m[1]!);

let opened: StackApp;
beforeAll(async () => {
  opened = await openStackApp(stack);
});
afterAll(async () => {
  await opened?.close();
});

describe("the README's curl lines", () => {
  it("are three, on the default base: products, an account and a swap quote", () => {
    expect(base).toBe("http://127.0.0.1:8080");
    expect(urls.map((u) => new URL(u).pathname.replace(/0x[0-9a-fA-F]{40}/, "{owner}"))).toEqual([
      "/v1/agent/products",
      "/v1/agent/accounts/{owner}",
      "/v1/agent/swap/quote",
    ]);
    for (const url of urls) expect(url.startsWith(`${base}/`), url).toBe(true);
  });

  it.each(urls)("%s answers 200, valid against the OpenAPI document", async (url) => {
    const { pathname, search } = new URL(url);
    const res = await opened.app.app.request(`${pathname}${search}`);
    const body = (await res.json()) as { data?: unknown };
    expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
    const template = pathname.replace(/0x[0-9a-fA-F]{40}/, "{owner}");
    expect(opened.validator.errors("get", template, 200, body)).toEqual([]);
    expect(body.data).toBeTruthy();
  });
});
