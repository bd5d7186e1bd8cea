// Two checkouts index the same devnet history into two schemas of one database, and their projection
// tables are compared by hash, table by table (test/helpers/indexer.ts's tableHashes). For showing that a
// change to the tree (a move, a refactor) leaves the index as it was.
//   npx tsx bench/tools/index-equal.ts <checkout A> <checkout B>
// Each checkout needs its node_modules (a link to this one's will do). The devnet's live simulator is
// held still (one step an hour), so both indexers see the same chain.
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { chainHead, tableHashes, waitIndexedAt } from "../../test/helpers/indexer.js";
import { freePort, startStack, stopProcess } from "../../test/helpers/stack.js";

const [a, b] = process.argv.slice(2).map((p) => resolve(p));
if (!a || !b) throw new Error("usage: npx tsx bench/tools/index-equal.ts <checkout A> <checkout B>");

const stack = await startStack({ indexer: false, simIntervalMs: 3_600_000, historyDays: 2 });
const log: string[] = [];
const indexers: ChildProcess[] = [];
try {
  const head = await chainHead(stack.rpcUrl);
  const started = await Promise.all(
    [a, b].map(async (checkout, i) => {
      const port = await freePort();
      const env = { ...process.env, ...stack.env, BASE_URL: "", DATABASE_SCHEMA: `index_${i}`, VIEWS_SCHEMA: `index_views_${i}`, PONDER_PORT: String(port) };
      const child = spawn(process.execPath, ["--import", "tsx", join(checkout, "scripts", "indexer.ts")], {
        cwd: checkout,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => log.push(`${i}| ${chunk.toString().trim()}`));
      indexers.push(child);
      return { url: `http://127.0.0.1:${port}`, schema: `index_${i}` };
    }),
  );
  for (const s of started) await waitIndexedAt(s.url, head, 600_000, log);
  if ((await chainHead(stack.rpcUrl)) !== head) throw new Error("the chain moved while indexing: compare again");
  const [ha, hb] = await Promise.all(started.map((s) => tableHashes(stack.databaseUrl, s.schema)));
  let equal = true;
  for (const table of Object.keys(ha!)) {
    const same = ha![table]!.md5 === hb![table]!.md5 && ha![table]!.rows === hb![table]!.rows;
    equal &&= same;
    console.log(
      `${same ? "equal" : "DIFFERENT"}  ${table}: ${ha![table]!.rows} rows, md5 ${ha![table]!.md5}${same ? "" : ` vs ${hb![table]!.rows} rows, md5 ${hb![table]!.md5}`}`,
    );
  }
  console.log(equal ? `every table equal at block ${head}` : "the indexes differ");
  process.exitCode = equal ? 0 : 1;
} catch (error) {
  console.error(log.slice(-40).join("\n"));
  throw error;
} finally {
  await Promise.all(indexers.map((c) => stopProcess(c)));
  await stack.stop();
}
