// `npm test`: three streams at once, each a sequence of commands, files one at a time within a vitest run.
//   checks: the type check, the linters (`npm run lint`), the unit projects (unit, unit-isolated), then the
//           soak's smoke (an e2e-own file: ~7 minutes of its own stack, where this stream has the time to spare)
//   own:    the other e2e files that start stacks of their own (project e2e-own)
//   shared: the e2e files on the one devnet and indexer of test/global-setup.ts (project e2e)
// No stream touches another's chain, databases or Redis keys, so they overlap: an e2e stream alone leaves about
// a third of a 2-core machine idle while it waits on a devnet, an indexer or a timer, and the other streams fill
// it (together they keep the CPU 95-100% busy: CI's 20-minute budget is the suite's CPU). The unit files run
// after the checks so that the two e2e streams, the longest, start at once. A stream stops at its first failing command.
// Lines are prefixed with the stream's name; the exit code is the worst. Extra arguments go to every vitest
// run (e.g. `-- --reporter=verbose`). One stream alone: `npx vitest run --project e2e`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const extra = process.argv.slice(2);
const vitest = (...projects: string[]) => ["npx", "vitest", "run", ...projects.flatMap((p) => ["--project", p]), ...extra];

const SOAK_SMOKE = "test/e2e/soak-smoke.test.ts";

const STREAMS: [name: string, commands: string[][]][] = [
  ["checks", [["npx", "tsc", "--noEmit"], ["npm", "run", "--silent", "lint"], vitest("unit", "unit-isolated"), [...vitest("e2e-own"), SOAK_SMOKE]]],
  ["own   ", [[...vitest("e2e-own"), "--exclude", SOAK_SMOKE]]],
  ["shared", [vitest("e2e")]],
];

const run = (name: string, [command, ...args]: string[]) =>
  new Promise<number>((resolve) => {
    const child = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" } });
    for (const [input, output] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const)
      createInterface({ input, crlfDelay: Infinity }).on("line", (line) => output.write(`${name} | ${line}\n`));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

async function stream(name: string, commands: string[][]): Promise<number> {
  for (const command of commands) {
    const code = await run(name, command);
    if (code !== 0) {
      console.error(`${name} | FAILED: ${command.join(" ")} (exit ${code})`);
      return code;
    }
  }
  return 0;
}

const started = Date.now();
const codes = await Promise.all(STREAMS.map(([name, commands]) => stream(name, commands)));
const seconds = Math.round((Date.now() - started) / 1000);
STREAMS.forEach(([name], i) => console.log(`${name} | ${codes[i] === 0 ? "passed" : `FAILED (exit ${codes[i]})`}`));
console.log(`test streams done in ${seconds} s`);
process.exitCode = Math.max(...codes);
