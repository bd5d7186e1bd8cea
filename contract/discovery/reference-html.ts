// The interactive API reference: Swagger UI (the swagger-ui-dist package, pinned in package.json)
// rendering the OpenAPI document the app serves, with "try it out" sending requests to the same
// origin. Its script and stylesheet are served by the API itself from node_modules
// (api/reference-assets.ts, under `reference/`, relative to the page): no CDN, no URL of any host.
// The page's only inline script is the nonce'd call that starts Swagger UI on `openapi.json`.
//
// Why not @scalar/hono-api-reference: it needs Node 22 (engines >=22) and loads its script from a
// CDN at run time; nor Redoc 3 (engines >=22). swagger-ui-dist has no engines and no native parts.
import { escapeHtml, PAGE_HEAD } from "../../domain/html.js";

/** The files of swagger-ui-dist the page loads, by the name they are served under (`reference/<name>`). */
export const REFERENCE_ASSETS = { "swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css" } as const;
export type ReferenceAsset = keyof typeof REFERENCE_ASSETS;

/**
 * The Content-Security-Policy the page is served with: its own nonce'd inline parts and
 * same-origin assets and fetches. Swagger UI needs neither 'unsafe-eval' nor 'unsafe-inline'.
 */
export function referenceCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

// Swagger UI's options: the document beside the page; no online validator badge (validator.swagger.io).
const START = `
"use strict";
window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  displayRequestDuration: true,
  filter: true,
  tryItOutEnabled: false,
  withCredentials: false,
});
`;

/** The page. `nonce` must be the one of the Content-Security-Policy header it is served with; `version` (swagger-ui-dist's) busts caches of the assets. */
export function renderReferenceHtml({ title, nonce, version }: { title: string; nonce: string; version: string }): string {
  const t = escapeHtml(title);
  const n = escapeHtml(nonce);
  const v = encodeURIComponent(version);
  return `${PAGE_HEAD}
<title>${t} reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="reference/swagger-ui.css?v=${v}" nonce="${n}">
<style nonce="${n}">body { margin: 0; }</style>
</head>
<body>
<div id="swagger-ui"><noscript>This page needs JavaScript. The description itself is at <a href="openapi.json">openapi.json</a>; a guide for agents at <a href="skill.md">skill.md</a> and <a href="llms.txt">llms.txt</a>.</noscript></div>
<script src="reference/swagger-ui-bundle.js?v=${v}" nonce="${n}"></script>
<script nonce="${n}">${START}</script>
</body>
</html>
`;
}
