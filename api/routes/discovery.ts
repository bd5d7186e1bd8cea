// Discovery documents, generated at request time from the route catalog so they never drift:
// - GET /v1/agent/skill.md   Markdown instructions for agents
// - GET /v1/agent/llms.txt   plain-text guide
// - GET /v1/agent/reference  interactive API reference (Swagger UI; loads openapi.json)
// - GET /v1/agent/reference/{swagger-ui-bundle.js,swagger-ui.css}  its assets, from node_modules (not in the document)
// - GET /llms.txt            the same text as /v1/agent/llms.txt, at the root
// - GET /                    a pointer to the documents and the MCP server (JSON)
//
// skill.md and llms.txt are pure functions (contract/discovery/) of the OpenAPI document the app serves
// at /v1/agent/openapi.json and of the error catalog: createApp hands these routes the function that
// makes that document.
import { randomBytes } from "node:crypto";
import { Hono, type Context } from "hono";
import { errorAnswers } from "../../contract/error-statuses.js";
import type { OpenApiDocument } from "../../contract/discovery/catalog.js";
import { rootIndex, ROOT_LLMS_PATH } from "../../contract/discovery/links.js";
import { renderLlmsTxt } from "../../contract/discovery/llms-txt.js";
import { REFERENCE_ASSETS, referenceCsp, renderReferenceHtml, type ReferenceAsset } from "../../contract/discovery/reference-html.js";
import { renderSkillMd } from "../../contract/discovery/skill-md.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { getLlms, getReference, getSkill } from "../../contract/operations/discovery.js";
import { createRouter } from "../router.js";
import { referenceAsset, referenceAssetsVersion } from "../reference-assets.js";
import { DAY_S } from "../../domain/price.js";

/**
 * The served document by origin, made once per origin (it depends only on the deps and the origin):
 * `served(origin)` makes the document the app serves at /v1/agent/openapi.json (api/app.ts).
 */
export const servedDocuments = (deps: Pick<AppDeps, "baseUrl">, served: (origin: string) => OpenApiDocument) => {
  const documents = new Map<string, Promise<OpenApiDocument>>();
  return (origin: string): Promise<OpenApiDocument> => {
    const key = deps.baseUrl ?? origin;
    let document = documents.get(key);
    if (!document) {
      document = Promise.resolve().then(() => served(origin));
      document.catch(() => documents.delete(key));
      if (documents.size < 16) documents.set(key, document);
    }
    return document;
  };
};

/** A rendering of a document, made once per document. */
const renderedOnce = (render: (doc: OpenApiDocument) => string) => {
  const texts = new WeakMap<OpenApiDocument, string>();
  return (doc: OpenApiDocument) => {
    let text = texts.get(doc);
    if (text === undefined) texts.set(doc, (text = render(doc)));
    return text;
  };
};

const send = (c: Context, body: string, type: string, headers: Record<string, string> = {}) =>
  c.body(body, 200, { "Content-Type": `${type}; charset=utf-8`, "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff", ...headers });

const originOf = (c: Context) => new URL(c.req.url).origin;

/** Mounted at /v1/agent: skill.md, llms.txt and the reference page of `documentFor(origin)` (servedDocuments);
 * `faucetUrl` (the devnet's faucet, on the devnet only) is named in skill.md and llms.txt. */
export const discoveryRoutes = (documentFor: (origin: string) => Promise<OpenApiDocument>, faucetUrl?: string) => {
  const skillMd = renderedOnce((doc) => renderSkillMd(doc, errorAnswers, { faucetUrl }));
  const llmsTxt = renderedOnce((doc) => renderLlmsTxt(doc, errorAnswers, { faucetUrl }));
  return (
    createRouter<AppEnv>()
      .openapi(getSkill, async (c) => send(c, skillMd(await documentFor(originOf(c))), "text/markdown") as never)
      .openapi(getLlms, async (c) => send(c, llmsTxt(await documentFor(originOf(c))), "text/plain") as never)
      .openapi(getReference, async (c) => {
        const nonce = randomBytes(16).toString("base64");
        const html = renderReferenceHtml({ title: (await documentFor(originOf(c))).info?.title ?? "Agent interface", nonce, version: referenceAssetsVersion });
        return send(c, html, "text/html", { "Content-Security-Policy": referenceCsp(nonce), "Cache-Control": "no-store" }) as never;
      })
      // The page's assets (swagger-ui-dist), outside the OpenAPI document; the page asks for them with ?v=<version>.
      .get("/reference/:asset{swagger-ui-bundle\\.js|swagger-ui\\.css}", (c) => {
        const name = c.req.param("asset") as ReferenceAsset;
        return c.body(new Uint8Array(referenceAsset(name)), 200, {
          "Content-Type": `${REFERENCE_ASSETS[name]}; charset=utf-8`,
          "Cache-Control": `public, max-age=${DAY_S}`,
          "X-Content-Type-Options": "nosniff",
        });
      })
  );
};

/**
 * Mounted at the root, outside /v1 and the OpenAPI document: GET /llms.txt (where llms.txt readers look
 * first; the text of /v1/agent/llms.txt) and GET / (where the documents and the MCP server are, JSON).
 */
export const rootDiscoveryRoutes = (documentFor: (origin: string) => Promise<OpenApiDocument>, faucetUrl?: string) => {
  const llmsTxt = renderedOnce((doc) => renderLlmsTxt(doc, errorAnswers, { faucetUrl }));
  // The index JSON, made once per document (documentFor keeps a handful, one per origin).
  const indexes = new WeakMap<OpenApiDocument, string>();
  return new Hono<AppEnv>()
    .get(ROOT_LLMS_PATH, async (c) => send(c, llmsTxt(await documentFor(originOf(c))), "text/plain"))
    .get("/", async (c) => {
      const doc = await documentFor(originOf(c));
      let index = indexes.get(doc);
      if (index === undefined) {
        const base = (doc.servers?.[0]?.url ?? originOf(c)).replace(/\/$/, "");
        indexes.set(doc, (index = JSON.stringify(rootIndex(base, doc.info?.title ?? "Agent interface"))));
      }
      return c.body(index, 200, { "Content-Type": "application/json", "Cache-Control": "public, max-age=300" });
    });
};
