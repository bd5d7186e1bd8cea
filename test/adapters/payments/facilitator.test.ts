// The facilitator client: a facilitator's verdict (a refused payment) passes through as the payment's
// answer; anything else (nothing listening, a timeout, an error page, garbage) is FacilitatorUnavailable,
// which the API answers 503 with nothing run. Against a real HTTP server on loopback.
import { serve, type ServerType } from "@hono/node-server";
import { VerifyError, type PaymentPayload, type PaymentRequirements } from "@x402/core/types";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFacilitatorClient, FacilitatorUnavailable } from "../../../adapters/payments/facilitator.js";
import { freePort } from "../../helpers/stack.js";

const requirements: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:4663",
  asset: "0x0000000000000000000000000000000000000001",
  amount: "1",
  payTo: "0x0000000000000000000000000000000000000002",
  maxTimeoutSeconds: 60,
  extra: {},
};
const payload: PaymentPayload = { x402Version: 2, accepted: requirements, payload: {} };

let server: ServerType;
let base: string;
beforeAll(async () => {
  // One path per behaviour: /ok/*, /refuses/*, /broken/*, /garbage/*, /slow/*.
  const app = new Hono()
    .get("/ok/supported", (c) => c.json({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:4663" }], extensions: [], signers: {} }))
    .post("/ok/verify", (c) => c.json({ isValid: false, invalidReason: "invalid_exact_evm_signature" }))
    .post("/refuses/verify", (c) => c.json({ isValid: false, invalidReason: "invalid_payload" }, 400))
    .post("/broken/verify", (c) => c.text("<html>bad gateway</html>", 502))
    .post("/broken/settle", (c) => c.text("bad gateway", 502))
    .post("/garbage/verify", (c) => c.text("not json"))
    .post("/slow/verify", async (c) => {
      await new Promise((r) => setTimeout(r, 1500));
      return c.json({ isValid: true });
    });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
  });
});
afterAll(() => {
  server?.close();
});

describe("createFacilitatorClient", () => {
  it("passes a facilitator's verdict through", async () => {
    const client = createFacilitatorClient(`${base}/ok`);
    expect((await client.getSupported()).kinds).toHaveLength(1);
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    await expect(createFacilitatorClient(`${base}/refuses`).verify(payload, requirements)).rejects.toBeInstanceOf(VerifyError);
  });

  it("makes every other failure FacilitatorUnavailable: nothing listening, an error page, garbage, a timeout", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(createFacilitatorClient(closed).getSupported()).rejects.toBeInstanceOf(FacilitatorUnavailable);
    await expect(createFacilitatorClient(closed).verify(payload, requirements)).rejects.toBeInstanceOf(FacilitatorUnavailable);
    await expect(createFacilitatorClient(`${base}/broken`).verify(payload, requirements)).rejects.toBeInstanceOf(FacilitatorUnavailable);
    await expect(createFacilitatorClient(`${base}/broken`).settle(payload, requirements)).rejects.toBeInstanceOf(FacilitatorUnavailable);
    await expect(createFacilitatorClient(`${base}/garbage`).verify(payload, requirements)).rejects.toBeInstanceOf(FacilitatorUnavailable);
    await expect(createFacilitatorClient(`${base}/slow`, 300).verify(payload, requirements)).rejects.toThrow(
      /verify failed: Facilitator verify request timed out after 300ms/,
    );
  });
});
