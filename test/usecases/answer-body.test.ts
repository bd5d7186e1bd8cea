// Answer bodies (usecases/answer-body.ts): bigints as decimal strings wherever they are, the same text
// whether or not a value holds one, and what JSON cannot write still refused.
import { describe, expect, it } from "vitest";
import { answerBody, stringify } from "../../usecases/answer-body.js";

describe("stringify", () => {
  it("writes a value without bigints exactly as JSON.stringify does", () => {
    const value = { a: "1.5", b: 2, c: [null, true, { d: "x" }], e: undefined };
    expect(stringify(value)).toBe(JSON.stringify(value));
  });

  it("writes bigints as decimal strings, at any depth and after other fields", () => {
    expect(stringify({ a: "first", list: [{ n: 1 }, { amount: 10n ** 30n }], last: -5n })).toBe(
      '{"a":"first","list":[{"n":1},{"amount":"1000000000000000000000000000000"}],"last":"-5"}',
    );
    expect(answerBody(7n)).toBe('{"data":"7"}');
  });

  it("still refuses a circular value", () => {
    const loop: Record<string, unknown> = { amount: 1n };
    loop.self = loop;
    expect(() => stringify(loop)).toThrow(TypeError);
  });

  it("does not swallow an error a value's toJSON throws", () => {
    expect(() =>
      stringify({
        toJSON: () => {
          throw new RangeError("no");
        },
      }),
    ).toThrow(RangeError);
  });
});
