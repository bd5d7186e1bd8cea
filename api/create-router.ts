// What every route file starts from: an OpenAPIHono whose validation failures answer 400 INVALID_REQUEST
// (api/validation.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationHook } from "./validation.js";

/** An OpenAPIHono with the validation hook set. */
export function createRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}
