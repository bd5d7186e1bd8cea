// `npm test`'s vitest part: two streams at once, each its own vitest process running files one at a time.
//   own:    the unit project, then the e2e files that start stacks of their own (project e2e-own)
//   shared: the e2e files on the one devnet and indexer of test/global-setup.ts (project e2e)
// Neither stream touches the other's chain, databases or Redis keys, so they overlap: most of a file's time is
// waiting on a devnet, an indexer or a timer, and two streams keep both cores busy (CI's 20-minute budget).
// Lines are prefixed with the stream's name; the exit code is the worse of the two. Extra arguments go to both
// (e.g. `-- --reporter=verbose`). One stream alone: `npx vitest run --project e2e`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const STREAMS: [name: string, projects: string[]][] = [
  ["own   ", ["unit", "e2e-own"]],
  ["shared", ["e2e"]],
];

const extra = process.argv.slice(2);
const vitest = (projects: string[]) =>
  new Promise<number>((resolve) => {
    const args = ["vitest", "run", ...projects.flatMap((p) => ["--project", p]), ...extra];
    const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" } });
    const name = STREAMS.find(([, p]) => p === projects)![0];
    for (const [input, output] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const)
      createInterface({ input, crlfDelay: Infinity }).on("line", (line) => output.write(`${name} | ${line}\n`));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const started = Date.now();
const codes = await Promise.all(STREAMS.map(([, projects]) => vitest(projects)));
const seconds = Math.round((Date.now() - started) / 1000);
STREAMS.forEach(([name], i) => console.log(`${name} | ${codes[i] === 0 ? "passed" : `FAILED (exit ${codes[i]})`}`));
console.log(`test streams done in ${seconds} s`);
process.exitCode = Math.max(...codes);
