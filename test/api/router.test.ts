// PartitionedRouter: the same answers as Hono's default router, with RegExpRouter kept outside the
// partition that needs TrieRouter.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { literalPrefix, PartitionedRouter } from "../../api/router.js";

/** An app with a param route beside literal ones under /v1/finder/, middleware on "*" and "/v1/*". */
function appWith(router?: PartitionedRouter<never>) {
  const app = new Hono(router ? { router } : {});
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("x-outer", "1");
  });
  app.use("/v1/*", async (c, next) => {
    await next();
    c.res.headers.set("x-v1", "1");
  });
  app.get("/v1/finder", (c) => c.text("board"));
  app.get("/v1/finder/track-record", (c) => c.text("track-record"));
  app.get("/v1/finder/:token", (c) => c.text(`token ${c.req.param("token")}`));
  app.get("/v1/vaults/:vault", (c) => c.text(`vault ${c.req.param("vault")}`));
  app.get("/v1/vaults/:vault/prices", (c) => c.text(`prices ${c.req.param("vault")}`));
  app.post("/v1/vaults/:vault", (c) => c.text(`post ${c.req.param("vault")}`));
  app.get("/health", (c) => c.text("ok"));
  return app;
}

const REQUESTS: [string, string][] = [
  ["GET", "/v1/finder"],
  ["GET", "/v1/finder/track-record"],
  ["GET", "/v1/finder/0xAbC"],
  ["GET", "/v1/finder/"],
  ["GET", "/v1/vaults/0x1"],
  ["GET", "/v1/vaults/0x1/prices"],
  ["POST", "/v1/vaults/0x2"],
  ["PUT", "/v1/vaults/0x2"],
  ["GET", "/health"],
  ["GET", "/nowhere"],
  ["HEAD", "/v1/finder/track-record"],
];

describe("PartitionedRouter", () => {
  it("answers every request as Hono's default router does (handlers, order, params, 404s)", async () => {
    const partitioned = appWith(new PartitionedRouter<never>(["/v1/finder/"]));
    const reference = appWith();
    for (const [method, path] of REQUESTS) {
      const [got, want] = await Promise.all([partitioned.request(path, { method }), reference.request(path, { method })]);
      const seen = { status: got.status, body: await got.text(), outer: got.headers.get("x-outer"), v1: got.headers.get("x-v1") };
      const expected = { status: want.status, body: await want.text(), outer: want.headers.get("x-outer"), v1: want.headers.get("x-v1") };
      expect(seen, `${method} ${path}`).toEqual(expected);
    }
    // Spot checks that the reference itself is what we mean.
    expect(await (await partitioned.request("/v1/finder/track-record")).text()).toBe("track-record");
    expect(await (await partitioned.request("/v1/finder/0xAbC")).text()).toBe("token 0xAbC");
  });

  it("keeps RegExpRouter outside the partition; only the partition falls back to TrieRouter", async () => {
    const router = new PartitionedRouter<never>(["/v1/finder/"]);
    const app = appWith(router);
    // The whole route set makes Hono's default router fall back to TrieRouter for everything.
    const reference = appWith();
    await reference.request("/health");
    expect(reference.router.name).toBe("SmartRouter + TrieRouter");

    await app.request("/health");
    await app.request("/v1/finder/x");
    expect(router.activeRouters()).toEqual({ "/v1/finder/": "TrieRouter", "*": "RegExpRouter" });
  });

  it("takes a pattern's literal start up to its first parameter or wildcard", () => {
    expect(literalPrefix("/v1/*")).toBe("/v1/");
    expect(literalPrefix("*")).toBe("");
    expect(literalPrefix("/v1/finder/:token")).toBe("/v1/finder/");
    expect(literalPrefix("/health")).toBe("/health");
  });
});
