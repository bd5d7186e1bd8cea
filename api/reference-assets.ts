// The files of swagger-ui-dist the reference page loads (contract/discovery/reference-html.ts), read
// from node_modules once, at the first request for them, and kept: the API serves them itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ReferenceAsset } from "../contract/discovery/reference-html.js";

const packageJson = createRequire(import.meta.url).resolve("swagger-ui-dist/package.json");
const files = new Map<ReferenceAsset, Buffer>();

/** swagger-ui-dist's version (the assets' cache key). */
export const referenceAssetsVersion: string = (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;

/** The bytes of one asset. */
export function referenceAsset(name: ReferenceAsset): Buffer {
  let file = files.get(name);
  if (!file) files.set(name, (file = readFileSync(join(dirname(packageJson), name))));
  return file;
}
