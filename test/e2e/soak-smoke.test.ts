// Issue 52's smoke: `npm run soak` for 2 minutes of traffic at a light scale (SOAK_AGENTS 30, SOAK_TRADERS 3),
// every fault of the schedule once, on a Postgres, Redis, devnet and service processes of its own. It passes
// when the soak exits 0 with its table printed: every invariant held (the ones a short run cannot judge,
// memory and connections, shown). The soak itself is bench/soak.ts; bench/README.md has an hour's table.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FAULTS } from "../../bench/soak/faults.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

function runSoak(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/soak.ts"], {
      cwd: repoRoot,
      env: { ...process.env, BASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe("the soak's smoke", () => {
  it("runs the service with users through every fault, and every invariant holds", async () => {
    const { code, out } = await runSoak({
      SOAK_MINUTES: "2",
      SOAK_AGENTS: "30",
      SOAK_TRADERS: "3",
      SOAK_ANALYSTS: "1",
      SOAK_TRADE_EVERY_MS: "8000",
      SOAK_HISTORY_DAYS: "1",
    });
    const tail = out.split("\n").slice(-60).join("\n");
    // The table, in the test's output either way (CI's log keeps the figures of each smoke).
    console.log(
      out
        .split("\n")
        .filter((line) => line.startsWith("|") || line.includes("fault:") || line.includes("users:") || /\] ((redis|heap) at |tcp over)/.test(line))
        .join("\n"),
    );
    expect(out, tail).toContain("| invariant");
    for (const fault of FAULTS) expect(out, `fault ${fault} injected`).toContain(`fault: ${fault} over in`);
    expect(out, tail).not.toMatch(/\| BROKEN \|/);
    // What memory is made of, read from the processes themselves at the end.
    expect(out, tail).toMatch(
      /heap at the end: indexer rss \d+ MiB, young \d+\/\d+ MiB \(resident [\d?]+\), old \d+\/\d+ MiB, [^;]+; api1 rss \d+ MiB, young \d+\/\d+ MiB \(resident \d+\)/,
    );
    expect(out, tail).toMatch(/redis at the end: used \d+ KiB/);
    expect(code, tail).toBe(0);
  }, 900_000);
});
