// The API's node flags reach it however it is started: `npm run api` as much as scripts/start.ts and
// the process helpers (which import API_NODE_FLAGS themselves).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_NODE_FLAGS } from "../../api/node-flags.js";

describe("API node flags", () => {
  it("npm run api passes them to node", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.api!.split(" ")).toEqual(["node", ...API_NODE_FLAGS, "--import", "tsx", "api/main.ts"]);
  });

  it("are flags this node accepts", () => {
    // An unknown or malformed flag makes node exit before running anything.
    expect(execFileSync(process.execPath, [...API_NODE_FLAGS, "-e", "process.stdout.write('ok')"], { encoding: "utf8" })).toBe("ok");
  });
});
