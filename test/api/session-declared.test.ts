// A handler reads the session only where its route's declaration takes one, so the OpenAPI operation and
// its MCP tool (`sessionToken`) never hide a session the route acts on.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bearerToken } from "../../api/middleware/session.js";
import { sessionSecurity } from "../../contract/session-security.js";

const answer = (route: Parameters<typeof bearerToken>[0]) => {
  const app = new Hono();
  app.onError((error, c) => c.text(error.message, 500));
  app.get("/x", (c) => c.json({ token: bearerToken(route, c) }));
  return app.request("/x", { headers: { Authorization: "Bearer tok" } });
};

describe("a session read names its route's declaration", () => {
  it("a route that declares the session, required or optional, reads the bearer token", async () => {
    for (const security of [sessionSecurity.required, sessionSecurity.optional]) {
      const res = await answer({ method: "get", path: "/x", security });
      expect(await res.json()).toEqual({ token: "tok" });
    }
  });

  it("a route that declares none (or only {}) throws instead of reading it", async () => {
    for (const security of [undefined, [], [{}]]) {
      const res = await answer({ method: "get", path: "/x", security });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe("GET /x reads a session that its declaration does not declare");
    }
  });
});
