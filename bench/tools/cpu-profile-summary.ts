// Where a process's CPU went, from the .cpuprofile files node writes with --cpu-prof (e.g. the read-speed
// bench's API: READ_API_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"): self time by owner (an npm
// package, a room of this repository, node's internals, GC) and the top functions, as shares of the
// busy (non-idle) time. `npx tsx bench/tools/cpu-profile-summary.ts /tmp/prof/*.cpuprofile`
import { readFileSync } from "node:fs";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

function ownerOf(url: string, name: string): string {
  if (name === "(garbage collector)" || name === "(program)" || name === "(idle)") return name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:") || url === "") return "node internals";
  const room = /\/(domain|contract|usecases|adapters|boot|api|workers|mcp|client|src)\//.exec(url);
  return room ? `repo: ${room[1]}/` : url;
}

const byOwner = new Map<string, number>();
const byFunction = new Map<string, number>();
let busy = 0;
for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id)!;
    const us = profile.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const owner = ownerOf(url, functionName);
    if (owner === "(idle)") return;
    busy += us;
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    const fn = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  });
}
const table = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title} (share of ${(busy / 1e6).toFixed(2)} s busy)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
table("self time by owner", byOwner, 20);
table("self time by function", byFunction, 25);
