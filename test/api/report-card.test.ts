// The report-card routes' switches: 404 REPORT_CARDS_DISABLED when report cards are off, and the public
// card behind the owner's session when AGENT_REPORT_CARDS_READS=owner. Sessions here are exchanged with
// real personal_sign signatures (viem accounts), verified without a chain (ecrecover).
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import { json, testApp, useApiFixture } from "./support.js";

const owner = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const api = useApiFixture();

describe("report-card switches", () => {
  it("report cards off: every report-card and session route is 404 REPORT_CARDS_DISABLED", async () => {
    const t = testApp({ db: api.db, redis: api.redis, reportCards: { enabled: false, reads: "public" }, rateLimit: { keyPrefix: `${api.prefix}:rl1` } });
    for (const [method, path, body] of [
      ["GET", `/v1/agent/report-card/${owner.address}`],
      ["GET", `/v1/agent/report-card/${owner.address}/private`],
      ["POST", "/v1/agent/report-card/session/challenge", { owner: owner.address }],
    ] as const) {
      const res = await t.app.request(path, { method, headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
      expect([res.status, (await json(res)).code], path).toEqual([404, "REPORT_CARDS_DISABLED"]);
    }
  });

  it("reads=owner: the public card needs the owner's session", async () => {
    const t = testApp({ db: api.db, redis: api.redis, reportCards: { enabled: true, reads: "owner" }, rateLimit: { keyPrefix: `${api.prefix}:rl2` } });
    const path = `/v1/agent/report-card/${owner.address}`;
    const none = await t.app.request(path);
    expect([none.status, (await json(none)).code]).toEqual([401, "SESSION_REQUIRED"]);
    const c = await createChallenge(api.db, { owner: owner.address, now: t.clock.now(), origin: "http://agent.test" });
    const { token } = await exchangeChallenge(api.db, {
      owner: owner.address,
      challengeId: c.challengeId,
      signature: await owner.signMessage({ message: c.message }),
      now: t.clock.now(),
    });
    const res = await t.app.request(path, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ view: "public", agents: [], hitRate: null });
  });
});
