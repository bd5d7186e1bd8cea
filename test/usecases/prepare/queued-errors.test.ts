// ApiErrors across the prepare queue (usecases/prepare/queued-errors.ts): what the worker throws, the API
// rebuilds, its wait included, also from a worker of the previous version while a deploy rolls.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../domain/errors.js";
import { decodeApiError, encodeApiError } from "../../../usecases/prepare/queued-errors.js";

describe("an ApiError across the queue", () => {
  it("comes back with its code, message, details and wait", () => {
    const sent = new ApiError("BUSY", "no turn", undefined, { retryAfterSeconds: 3 });
    const back = decodeApiError(`failed: ${encodeApiError(sent)}`);
    expect(back).toBeInstanceOf(ApiError);
    expect([back?.code, back?.message, back?.retryAfterSeconds]).toEqual(["BUSY", "no turn", 3]);
    const detailed = decodeApiError(encodeApiError(new ApiError("FIRST_TOO_SMALL", "small", { part: 1, minimum: "10", unit: "USDG" })));
    expect([detailed?.details, detailed?.retryAfterSeconds]).toEqual([{ part: 1, minimum: "10", unit: "USDG" }, undefined]);
  });

  it("keeps the wait a worker of the previous version sent as a header", () => {
    const old = `api-error:${JSON.stringify({ code: "BUSY", message: "busy", headers: { "Retry-After": "1" } })}`;
    expect(decodeApiError(old)?.retryAfterSeconds).toBe(1);
  });

  it("is nothing for a reason that is not one, or names a code outside the catalog, or a wait that is not a number", () => {
    expect(decodeApiError("Error: boom")).toBeUndefined();
    expect(decodeApiError(`api-error:${JSON.stringify({ code: "NO_SUCH_CODE" })}`)).toBeUndefined();
    expect(decodeApiError("api-error:{not json")).toBeUndefined();
    expect(decodeApiError(`api-error:${JSON.stringify({ code: "BUSY", retryAfterSeconds: "soon" })}`)?.retryAfterSeconds).toBeUndefined();
  });
});
