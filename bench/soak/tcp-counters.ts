// The kernel's TCP counters over the run (Linux's /proc/net/netstat and /proc/net/snmp), printed at the end:
// a connection to a local Postgres that waits seconds (session 30's CONNECT_TIMEOUTs) is either a SYN the
// kernel dropped (a full listen queue: ListenOverflows, ListenDrops; then TCPSynRetrans) or a server slow
// to answer once connected. The machine's, not only the service's: other work shows up here too.
import { readFileSync } from "node:fs";

const WANTED = ["ListenOverflows", "ListenDrops", "TCPSynRetrans", "TCPTimeouts", "AttemptFails", "EstabResets", "ActiveOpens"];

/** Each wanted counter's value now (empty where /proc is not Linux's). */
export function tcpCounters(files = ["/proc/net/netstat", "/proc/net/snmp"]): Map<string, number> {
  const out = new Map<string, number>();
  for (const file of files) {
    let lines: string[];
    try {
      lines = readFileSync(file, "utf8").split("\n");
    } catch {
      continue;
    }
    // Pairs of lines: "TcpExt: Name1 Name2 ..." then "TcpExt: 1 2 ...".
    for (let i = 0; i + 1 < lines.length; i += 2) {
      const names = lines[i]!.split(/\s+/);
      const values = lines[i + 1]!.split(/\s+/);
      if (names[0] !== values[0] || !/^Tcp(Ext)?:$/.test(names[0] ?? "")) continue;
      names.forEach((name, k) => WANTED.includes(name) && out.set(name, Number(values[k])));
    }
  }
  return out;
}

/** "Name +delta" for each counter, from `before` to `after`. */
export function tcpDelta(before: Map<string, number>, after: Map<string, number>): string {
  return (
    WANTED.filter((n) => after.has(n))
      .map((n) => `${n} +${after.get(n)! - (before.get(n) ?? 0)}`)
      .join(", ") || "no counters (not Linux)"
  );
}
