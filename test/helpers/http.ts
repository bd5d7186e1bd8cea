// Requests to the app in process for e2e tests: a JSON POST and a GET whose answers are checked against the
// served OpenAPI document, the status-and-code check of a refusal, and waiting until something is seen.
import { expect } from "vitest";
import { detailsProblems } from "../../domain/errors.js";
import type { ResponseValidator } from "./openapi-validate.js";

export type Answer = { status: number; body: any };

type App = { request(path: string, init?: RequestInit): Response | Promise<Response> };

/** POSTs `body` as JSON to `path`; the answer must match the OpenAPI document, whatever its status. */
export async function postChecked(app: App, validator: ResponseValidator, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await app.request(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  const answer = await res.json();
  expect(validator.errors("post", path, res.status, answer), `${path} ${res.status} against the OpenAPI document`).toEqual([]);
  // Every refusal's details in the spec's fields and units (domain/errors.ts detailsProblems).
  const refusal = answer as { code?: unknown; details?: Record<string, unknown> };
  if (refusal?.code !== undefined) expect(detailsProblems(String(refusal.code), refusal.details), path).toEqual([]);
  return { status: res.status, body: answer };
}

/** GETs `path` (a query allowed): it must answer 200, matching the OpenAPI document; answers its `data`. */
export async function getData(app: App, validator: ResponseValidator, path: string): Promise<any> {
  const res = await app.request(path);
  const body = (await res.json()) as any;
  expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  expect(validator.errors("get", path, 200, body), `${path} against the OpenAPI document`).toEqual([]);
  return body.data;
}

/** The answer is the refusal `status` with `code`. */
export const expectCode = (a: Answer, status: number, code: string) =>
  expect({ status: a.status, code: a.body.code }, JSON.stringify(a.body)).toEqual({ status, code });

/** Reads every `everyMs` until the read answers something truthy; throws after `ms`. */
export async function until<T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 30_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
