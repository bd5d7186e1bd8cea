// The soak's TCP counters (bench/soak/tcp-counters.ts) read this machine's kernel, and count what happens.
import { createServer, connect } from "node:net";
import { describe, expect, it } from "vitest";
import { tcpCounters, tcpDelta } from "../../bench/soak/tcp-counters.js";

describe("the soak's TCP counters", () => {
  it.runIf(process.platform === "linux")("reads the kernel's counters, and a connection opened moves ActiveOpens", async () => {
    const before = tcpCounters();
    expect([...before.keys()]).toEqual(expect.arrayContaining(["ListenOverflows", "ListenDrops", "TCPSynRetrans", "AttemptFails", "ActiveOpens"]));
    const server = createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    await new Promise<void>((resolve, reject) => connect((server.address() as { port: number }).port, "127.0.0.1", resolve).on("error", reject));
    server.close();
    const after = tcpCounters();
    expect(after.get("ActiveOpens")!).toBeGreaterThan(before.get("ActiveOpens")!);
    expect(tcpDelta(before, after)).toMatch(
      /^ListenOverflows \+\d+, ListenDrops \+\d+, TCPSynRetrans \+\d+, TCPTimeouts \+\d+, AttemptFails \+\d+, EstabResets \+\d+, ActiveOpens \+[1-9]\d*$/,
    );
  });

  it("says so where there are none", () => {
    expect(tcpDelta(new Map(), tcpCounters(["/nonexistent"]))).toBe("no counters (not Linux)");
  });
});
