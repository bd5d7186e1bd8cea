// Discovery documents, generated at request time from the route catalog so they never drift:
// - GET /v1/agent/skill.md   Markdown instructions for agents
// - GET /v1/agent/llms.txt   plain-text guide
// - GET /v1/agent/reference  interactive API reference (self-contained HTML; loads openapi.json)
//
// skill.md and llms.txt are pure functions (contract/discovery/) of the OpenAPI document the app serves
// at /v1/agent/openapi.json and of the error catalog: createApp hands these routes the function that
// makes that document.
import { createRoute, z } from "@hono/zod-openapi";
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { errorCatalog } from "../../domain/errors.js";
import type { OpenApiDocument } from "../../contract/discovery/catalog.js";
import { renderLlmsTxt } from "../../contract/discovery/llms-txt.js";
import { referenceCsp, renderReferenceHtml } from "../../contract/discovery/reference-html.js";
import { renderSkillMd } from "../../contract/discovery/skill-md.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponses } from "../../contract/fields.js";
import { createRouter } from "../create-router.js";

const text = (description: string, type: string) => ({ description, content: { [type]: { schema: z.string() } } });

const getSkill = createRoute({
  method: "get",
  path: "/skill.md",
  tags: ["Discovery"],
  summary: "Markdown instructions for agents",
  description:
    "What the service does and its rules, how to work with it, every route of the OpenAPI description with its parameters and error codes, and the error catalog. Generated from the OpenAPI description and the error catalog at request time.",
  responses: { 200: text("The skill document (text/markdown)", "text/markdown"), ...errorResponses() },
});

const getLlms = createRoute({
  method: "get",
  path: "/llms.txt",
  tags: ["Discovery"],
  summary: "Plain-text guide",
  description: "The same guide as skill.md in the llms.txt layout: summary, rules, links, one line per route, the error codes. Generated at request time.",
  responses: { 200: text("The guide (text/plain)", "text/plain"), ...errorResponses() },
});

const getReference = createRoute({
  method: "get",
  path: "/reference",
  tags: ["Discovery"],
  summary: "Interactive API reference",
  description:
    "A self-contained HTML page (no external assets) that renders the OpenAPI description: every route, its parameters and answer shapes, and a form to try it from the browser.",
  responses: { 200: text("The reference page (text/html)", "text/html"), ...errorResponses() },
});

/** `served(origin)`: the document the app serves at /v1/agent/openapi.json (api/app.ts). */
export const discoveryRoutes = (deps: AppDeps, served: (origin: string) => OpenApiDocument) => {
  // The document depends only on the deps and the origin: build it once per origin.
  const documents = new Map<string, Promise<OpenApiDocument>>();
  const documentFor = (c: Context) => {
    const origin = new URL(c.req.url).origin;
    const key = deps.baseUrl ?? origin;
    let document = documents.get(key);
    if (!document) {
      document = Promise.resolve().then(() => served(origin));
      document.catch(() => documents.delete(key));
      if (documents.size < 16) documents.set(key, document);
    }
    return document;
  };
  const send = (c: Context, body: string, type: string, headers: Record<string, string> = {}) =>
    c.body(body, 200, { "Content-Type": `${type}; charset=utf-8`, "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff", ...headers });

  return createRouter<AppEnv>()
    .openapi(getSkill, async (c) => send(c, renderSkillMd(await documentFor(c), errorCatalog), "text/markdown") as never)
    .openapi(getLlms, async (c) => send(c, renderLlmsTxt(await documentFor(c), errorCatalog), "text/plain") as never)
    .openapi(getReference, async (c) => {
      const nonce = randomBytes(16).toString("base64");
      const html = renderReferenceHtml({ title: (await documentFor(c)).info?.title ?? "Agent interface", nonce });
      return send(c, html, "text/html", { "Content-Security-Policy": referenceCsp(nonce), "Cache-Control": "no-store" }) as never;
    });
};
