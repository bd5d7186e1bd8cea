// Every builder refusal names the request's own field. The walk: random valid requests of every kind
// (test/domain/bundles/arbitraries.ts), each parameter at every depth set in turn to each bad value; every
// BundleError that comes out is taken as the prepare route would answer it (usecases/prepare/resolve/build.ts)
// and its field checked against the kind's body schema (contract/prepare-kinds.ts), its details against the
// spec's fields. The table (usecases/prepare/builder-fields.ts) must name every parameter the walk reaches,
// and nothing else.
import fc from "fast-check";
import { maxUint256, zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { prepareKindRegistry, type PrepareKind } from "../../../contract/prepare-kinds.js";
import { BundleError } from "../../../domain/bundles/index.js";
import { type ApiError, detailsProblems } from "../../../domain/errors.js";
import { builderFields, fieldPattern } from "../../../usecases/prepare/builder-fields.js";
import { fromBundleError } from "../../../usecases/prepare/resolve/build.js";
import { anyRequest, build, type Request } from "../../domain/bundles/arbitraries.js";

const BAD: unknown[] = [undefined, null, "x", -1n, 0n, maxUint256, 2n ** 256n, 7, 99, true, [], {}, zeroAddress, "0x1"];

type Json = Record<string, unknown>;

/** Every path of `value` (objects and arrays, to any depth) with a setter that returns a changed copy. */
function paths(value: unknown, prefix = ""): { path: string; set: (v: unknown) => unknown }[] {
  const out: { path: string; set: (v: unknown) => unknown }[] = [];
  const at = (key: string | number) => (typeof key === "number" ? `${prefix}[${key}]` : prefix ? `${prefix}.${key}` : key);
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value !== null && typeof value === "object"
      ? Object.entries(value as Json)
      : [];
  for (const [key, child] of entries) {
    const copyWith = (v: unknown) => (Array.isArray(value) ? value.map((c, i) => (i === key ? v : c)) : { ...(value as Json), [key]: v });
    out.push({ path: at(key), set: copyWith });
    for (const inner of paths(child, at(key))) out.push({ path: inner.path, set: (v) => copyWith(inner.set(v)) });
  }
  return out;
}

/** The zod schema at `path` of a body schema (optional, default and nullable unwrapped), or undefined. */
function schemaAt(schema: z.ZodType, path: string): z.ZodType | undefined {
  let node: z.ZodType | undefined = schema;
  for (const segment of path.match(/[^.[\]]+|\[\d*\]/g) ?? []) {
    while (node && ["optional", "default", "nullable", "prefault"].includes(node._zod.def.type))
      node = (node._zod.def as unknown as { innerType: z.ZodType }).innerType;
    if (!node) return undefined;
    const def = node._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
    node = segment.startsWith("[") ? (def.type === "array" ? def.element : undefined) : def.type === "object" ? def.shape?.[segment] : undefined;
  }
  return node;
}

/** Every refusal the walk reaches: kind, the builder's field, and the answer the route gives. */
function walk(runs: number): { kind: PrepareKind; error: BundleError; answer: ApiError }[] {
  const seen: { kind: PrepareKind; error: BundleError; answer: ApiError }[] = [];
  for (const request of fc.sample(anyRequest, { numRuns: runs, seed: 55 })) {
    for (const { set } of paths(request.p)) {
      for (const bad of BAD) {
        try {
          build({ kind: request.kind, p: set(bad) } as Request);
        } catch (error) {
          // A value outside the parameters' type where the builder reads into it (a leg that is no object): no resolver can hand it.
          if (error instanceof TypeError) continue;
          if (!(error instanceof BundleError)) throw error;
          try {
            fromBundleError(request.kind, error);
          } catch (answer) {
            seen.push({ kind: request.kind, error, answer: answer as ApiError });
          }
        }
      }
    }
  }
  return seen;
}

describe("builder refusals in the request's fields", () => {
  const refusals = walk(300);

  it("reaches refusals of every kind", () => {
    expect(new Set(refusals.map((r) => r.kind))).toEqual(new Set(Object.keys(prepareKindRegistry)));
    expect(refusals.length).toBeGreaterThan(1000);
  });

  it("every INVALID_REQUEST names its parameter, and the table names every parameter refused", () => {
    for (const { kind, error } of refusals) {
      if (error.code === "INVALID_REQUEST") expect(error.field, `${kind}: ${error.message}`).toBeDefined();
      if (error.field !== undefined) expect(builderFields[kind][fieldPattern(error.field)], `${kind}: ${error.field}`).not.toBe(undefined);
    }
  });

  it("each refusal answers in a field of the route's body schema, with details in the spec's fields; the service's own parameters are 500 INTERNAL", () => {
    for (const { kind, error, answer } of refusals) {
      const label = `${kind} ${error.field}: ${error.message}`;
      const mapped = error.field === undefined ? undefined : builderFields[kind][fieldPattern(error.field)];
      expect(detailsProblems(answer.code, answer.details), label).toEqual([]);
      if (mapped === null && error.code === "INVALID_REQUEST") {
        expect(answer.code, label).toBe("INTERNAL");
        continue;
      }
      expect(answer.code, label).toBe(error.code);
      if (answer.code !== "INVALID_REQUEST") continue;
      const field = answer.details?.field;
      expect(field, label).toBeDefined();
      expect(schemaAt(prepareKindRegistry[kind].body, field!), `${label} → ${field}`).toBeDefined();
      expect(answer.details?.issues, label).toEqual([{ field, message: expect.any(String) }]);
      expect(answer.message.startsWith(`${field}: `), label).toBe(true);
    }
  });

  it("the table holds no stale row: every row is reached by the walk, and every body field it names is in the schema", () => {
    const reached = new Set(refusals.filter((r) => r.error.field !== undefined).map((r) => `${r.kind} ${fieldPattern(r.error.field!)}`));
    for (const [kind, rows] of Object.entries(builderFields) as [PrepareKind, (typeof builderFields)[PrepareKind]][]) {
      for (const [parameter, target] of Object.entries(rows)) {
        expect(reached.has(`${kind} ${parameter}`), `${kind} ${parameter} is never refused`).toBe(true);
        const field = target === null ? undefined : typeof target === "string" ? target : target.field;
        if (field !== undefined) expect(schemaAt(prepareKindRegistry[kind].body, field.replace(/\[\]/g, "[0]")), `${kind}: ${field}`).toBeDefined();
      }
    }
  });

  it("the issue's cases: setRepeat with mask 0 names mask; mode queue on a vault without a redeem queue names mode, never redeemQueue", () => {
    const mask = refusals.find((r) => r.kind === "ladder-strategy" && r.error.field === "mask" && r.error.message.includes("from 1 to 3"));
    expect(mask?.answer.details).toEqual({ field: "mask", issues: [{ field: "mask", message: "must be an integer from 1 to 3" }] });
    const queue = refusals.find((r) => r.kind === "vault-withdraw" && r.error.field === "redeemQueue");
    expect(queue?.answer.code).toBe("INVALID_REQUEST");
    expect(queue?.answer.details?.field).toBe("mode");
    expect(queue?.answer.message).not.toMatch(/redeemQueue/);
    const part = refusals.find((r) => r.kind === "ladder-strategy" && /^legs\[\d+\]\.buyPriceX18$/.test(r.error.field ?? ""));
    expect(part?.answer.details?.field).toMatch(/^legs\[\d+\]\.buyPrice$/);
    expect(part?.answer.message).not.toMatch(/X18/);
  });
});
