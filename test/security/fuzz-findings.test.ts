// What test/e2e/fuzz-routes.test.ts found, kept as fast regressions:
// - an amount of 80 digits (valid for the Amount schema) reached viem's uint256 encoding in the
//   limit-order resolver and answered 500: amounts and ids are now bounded where they are parsed;
// - a NUL in a text field that reached Postgres (the session exchange's challengeId) answered 500:
//   Postgres refusing a request's text for its bytes (SQLSTATE 22021) is now 400 INVALID_REQUEST;
// - requests Node's HTTP parser refuses (raw UTF-8 in the path, 16 KiB of headers) answered Node's
//   bare 400 / 431: they now answer the catalog's envelope (api/middleware/client-error.ts).
import { describe, expect, it } from "vitest";
import { json, testApp, useApiFixture } from "../api/support.js";
import { parserErrorResponse } from "../../api/middleware/client-error.js";
import { ApiError } from "../../domain/errors.js";
import { errorStatus } from "../../contract/error-statuses.js";
import { MAX_AMOUNT_UNITS, toBaseUnits, toId, toPriceX18 } from "../../usecases/prepare/resolve/numbers.js";

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("amounts and ids are bounded where a request's text becomes a number", () => {
  it("an amount over 2^128 - 1 base units is 400 INVALID_REQUEST naming the field; the bound itself passes", () => {
    const error = refusal(() => toBaseUnits("amount", "9".repeat(79), 6));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "INVALID_REQUEST", details: { field: "amount" } });
    expect(toBaseUnits("amount", MAX_AMOUNT_UNITS.toString(), 0)).toBe(MAX_AMOUNT_UNITS);
    expect(refusal(() => toBaseUnits("amount", (MAX_AMOUNT_UNITS + 1n).toString(), 0))).toMatchObject({ code: "INVALID_REQUEST" });
    expect(refusal(() => toPriceX18("price", "1".padEnd(60, "0")))).toMatchObject({ code: "INVALID_REQUEST", details: { field: "price" } });
    expect(toBaseUnits("amount", "000125.500000", 6)).toBe(125_500_000n);
  });

  it("an id of 2^256 or more is 400 INVALID_REQUEST; 2^256 - 1 passes", () => {
    expect(toId("orderId", (2n ** 256n - 1n).toString())).toBe(2n ** 256n - 1n);
    expect(refusal(() => toId("orderId", (2n ** 256n).toString()))).toMatchObject({ code: "INVALID_REQUEST", details: { field: "orderId" } });
    expect(refusal(() => toId("orderId", "9".repeat(78)))).toMatchObject({ code: "INVALID_REQUEST" });
  });
});

describe("parser refusals answer in the envelope", () => {
  it("is an HTTP/1.1 400 with a JSON {error, code: INVALID_REQUEST} body of the right length, and closes", () => {
    for (const code of ["HPE_INVALID_METHOD", "HPE_HEADER_OVERFLOW", "HPE_INVALID_CHARACTER"]) {
      const text = parserErrorResponse(Object.assign(new Error("parse"), { code }));
      const [head, body] = text.split("\r\n\r\n") as [string, string];
      expect(head.split("\r\n")[0]).toBe(`HTTP/1.1 ${errorStatus.INVALID_REQUEST} Bad Request`);
      expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
      expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
      expect(Object.keys(JSON.parse(body)).sort()).toEqual(["code", "error"]);
      expect(JSON.parse(body).code).toBe("INVALID_REQUEST");
    }
  });
});

describe("text Postgres cannot hold", () => {
  const api = useApiFixture();

  it("a NUL in the session exchange's challengeId is 400 INVALID_REQUEST, not 500 (the fuzz's input)", async () => {
    const t = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
    const body = '{"challengeId":"x","owner":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","challengeId":"\\u0000","signature":"0x9e9A9FEa"}';
    const res = await t.app.request("/v1/agent/report-card/session", { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: "INVALID_REQUEST" });
    expect(t.log.lines.some((l) => l.level === "error")).toBe(false);
  });

  it("a NUL in any JSON body is 400 INVALID_REQUEST before a handler or a job sees it (the fuzz's basket-buy input)", async () => {
    const t = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:nul` } });
    const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    for (const body of [
      `{"basket":"\\u0000","owner":"${owner}","amount":"1"}`,
      `{"basket":"BLUE","owner":"${owner}","amount":"1","agentTag":"a\\u0000b"}`,
      `{"basket":"BLUE\u0000","owner":"${owner}","amount":"1"}`,
    ]) {
      const res = await t.app.request("/v1/agent/prepare/basket-buy", { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status, body).toBe(400);
      expect(await json(res)).toMatchObject({ code: "INVALID_REQUEST" });
    }
    expect(t.log.lines.some((l) => l.level === "error")).toBe(false);
  });
});
