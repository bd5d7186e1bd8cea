// The long-running processes' npm scripts start node itself (`node --import tsx <file>`), never through the
// tsx CLI: tsx relays SIGINT and SIGTERM to its child and, when the child has not acknowledged the signal
// over tsx's IPC within 30 ms (a loaded machine), sends it again and then SIGKILL. `npm start`'s supervisor
// was killed so in the middle of its stop after a Ctrl-C (CI, session 32), leaving the indexer and the
// embedded Redis running; a process manager's SIGTERM to `npm run api` could cut the graceful stop the same way.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const scripts = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;
const LONG_RUNNING = ["start", "devnet", "indexer", "analysts", "api", "worker"];

describe("the services' npm scripts", () => {
  it.each(LONG_RUNNING)("%s runs node with tsx as a loader, not the tsx CLI", (name) => {
    // Environment assignments first (`MALLOC_ARENA_MAX=2 node …`), then node itself.
    const words = scripts[name]!.split(" ").filter((w) => !/^[A-Z_]+=/.test(w));
    expect(words[0]).toBe("node");
    expect(words.slice(words.indexOf("--import"), words.indexOf("--import") + 2)).toEqual(["--import", "tsx"]);
  });
});
