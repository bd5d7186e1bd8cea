// A private Postgres that counts per statement, for the write-side and read-side profiles (issue 33):
// pg_stat_statements (nested statements too: Ponder's reorg triggers), track_io_timing, and auto_explain
// for statements over 200 ms (COUNTING_PG_EXPLAIN_MS: another bound, with
// timings and buffers, for a 5% sample). The machine's own Postgres is left as it is.
//
//   npx tsx bench/tools/counting-postgres.ts start   # prints TEST_POSTGRES_ADMIN_URL=… for the benchmarks
//   TEST_POSTGRES_ADMIN_URL=postgresql://postgres@127.0.0.1:55432/postgres npx tsx bench/changing-answers.ts
//   npx tsx bench/tools/counting-postgres.ts stop
//
// The cluster lives in $COUNTING_PG_DIR (default: a folder under the system's temp dir); Debian's
// binaries (/usr/lib/postgresql/<v>/bin) run it, as the postgres user when this runs as root.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, chownSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PORT = Number(process.env.COUNTING_PG_PORT ?? 55432);
const dir = process.env.COUNTING_PG_DIR ?? join(tmpdir(), "agent-counting-pg");
const version = readdirSync("/usr/lib/postgresql").sort().at(-1);
if (!version) throw new Error("no Postgres binaries under /usr/lib/postgresql");
const bin = (name: string) => join("/usr/lib/postgresql", version, "bin", name);

const settings = [
  `-p ${PORT}`,
  `-k ${dir}`,
  "-c listen_addresses=127.0.0.1",
  "-c max_connections=300",
  "-c shared_preload_libraries=pg_stat_statements,auto_explain",
  "-c pg_stat_statements.track=all",
  "-c track_io_timing=on",
  `-c auto_explain.log_min_duration=${process.env.COUNTING_PG_EXPLAIN_MS ?? 200}`,
  // With COUNTING_PG_EXPLAIN_MS low (a plan hunt), plans with their timings and buffers, for a sample of the statements.
  ...(process.env.COUNTING_PG_EXPLAIN_MS ? ["-c auto_explain.log_analyze=on", "-c auto_explain.log_buffers=on", "-c auto_explain.sample_rate=0.05"] : []),
  "-c auto_explain.log_nested_statements=on",
];

/** Runs a Postgres binary, as the postgres user when this process is root (Postgres refuses root). */
function run(file: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? "su" : file;
  const argv = asRoot ? ["postgres", "-c", [file, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")] : args;
  execFileSync(command, argv, { stdio: "inherit" });
}

const action = process.argv[2];
if (action === "start") {
  if (!existsSync(join(dir, "data"))) {
    mkdirSync(dir, { recursive: true });
    if (process.getuid?.() === 0)
      chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString()), Number(execFileSync("id", ["-g", "postgres"]).toString()));
    run(bin("initdb"), ["-D", join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  }
  run(bin("pg_ctl"), ["-D", join(dir, "data"), "-l", join(dir, "log"), "-w", "start", "-o", settings.join(" ")]);
  console.log(`TEST_POSTGRES_ADMIN_URL=postgresql://postgres@127.0.0.1:${PORT}/postgres`);
} else if (action === "stop") {
  run(bin("pg_ctl"), ["-D", join(dir, "data"), "-w", "stop", "-m", "fast"]);
} else {
  console.error("usage: counting-postgres.ts start|stop");
  process.exit(2);
}
