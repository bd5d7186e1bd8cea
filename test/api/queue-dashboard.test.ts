// The queue dashboard (api/queue-dashboard.ts): 404 when its credentials are not set, 401 without them
// or with wrong ones (on the page, its API and its assets), the board with them; guesses are rate-limited.
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_NAMES } from "../../usecases/queues.js";
import { REDIS_URL, testApp, useApiFixture } from "./support.js";

const fixture = useApiFixture();
const USER = "operator";
const PASSWORD = "a-long-dashboard-password";
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });
let queues: Queue[] = [];

beforeAll(() => {
  queues = QUEUE_NAMES.map((name) => new Queue(name, { connection: { url: REDIS_URL }, prefix: `${fixture.prefix}:bull` }));
});
afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
});

describe("queue dashboard", () => {
  it("answers 404 when the credentials are unset", async () => {
    const { app } = testApp({ db: fixture.db, redis: fixture.redis });
    for (const path of ["/admin/queues", "/admin/queues/", "/admin/queues/api/queues"]) {
      expect((await app.request(path, { headers: basic(USER, PASSWORD) })).status, path).toBe(404);
    }
  });

  it("answers 401 without credentials or with wrong ones, never the board", async () => {
    const { app } = testApp({ db: fixture.db, redis: fixture.redis, queueDashboard: { queues, user: USER, password: PASSWORD } });
    for (const path of ["/admin/queues", "/admin/queues/", "/admin/queues/api/queues", "/admin/queues/static/js/main.js"]) {
      for (const headers of [{}, basic(USER, "wrong"), basic("someone", PASSWORD), { authorization: "Bearer x" }]) {
        const res = await app.request(path, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Basic realm="queues"'); // a browser asks for them
        expect(await res.text()).not.toContain("bull");
      }
    }
  });

  it("serves the board and its queues with the credentials", async () => {
    const { app } = testApp({ db: fixture.db, redis: fixture.redis, queueDashboard: { queues, user: USER, password: PASSWORD } });
    await queues[0]!.add("dashboard-test", { n: 1 });
    const page = await app.request("/admin/queues", { headers: basic(USER, PASSWORD) });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const api = await app.request("/admin/queues/api/queues", { headers: basic(USER, PASSWORD) });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: { name: string; counts: Record<string, number> }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES].sort());
    expect(body.queues.find((q) => q.name === queues[0]!.name)!.counts.waiting).toBe(1);
  });

  it("rate-limits guesses per client, as every other route", async () => {
    const { app } = testApp({ db: fixture.db, redis: fixture.redis, queueDashboard: { queues, user: USER, password: PASSWORD }, rateLimit: { points: 5 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await app.request("/admin/queues/api/queues", { headers: { ...basic(USER, `guess${i}`), "x-forwarded-for": "10.9.9.9" } })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
  });
});
