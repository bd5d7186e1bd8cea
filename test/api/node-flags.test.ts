// The API's node flags and environment reach it however it is started: `npm run api` as much as
// scripts/start.ts and the process helpers (which import API_NODE_FLAGS and API_ENV themselves).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_ENV, API_NODE_FLAGS } from "../../api/node-flags.js";

describe("API node flags", () => {
  it("npm run api passes them to node", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
    const env = Object.entries(API_ENV).map(([name, value]) => `${name}=${value}`);
    expect(pkg.scripts.api!.split(" ")).toEqual([...env, "node", ...API_NODE_FLAGS, "--import", "tsx", "api/main.ts"]);
  });

  it("npm run api hands its environment to the process", () => {
    // The shell npm runs scripts with takes `NAME=value node …` as the child's environment.
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
    const prefix = pkg.scripts.api!.split(" node ")[0];
    const names = Object.keys(API_ENV).join(",");
    const script = `${prefix} node -e 'process.stdout.write(JSON.stringify(Object.fromEntries("${names}".split(",").map((n) => [n, process.env[n]]))))'`;
    expect(JSON.parse(execFileSync("sh", ["-c", script], { encoding: "utf8", env: { PATH: process.env.PATH } }))).toEqual(API_ENV);
  });

  it("are flags this node accepts", () => {
    // An unknown or malformed flag makes node exit before running anything.
    expect(execFileSync(process.execPath, [...API_NODE_FLAGS, "-e", "process.stdout.write('ok')"], { encoding: "utf8" })).toBe("ok");
  });
});
