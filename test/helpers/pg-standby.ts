// A Postgres primary and a streaming standby of the test's own, made with the host's Postgres 15
// binaries (initdb, pg_ctl, pg_basebackup) in a temp folder, on free ports: the machine's own Postgres
// at 5432 is not touched. Run as root, the servers run as the `postgres` user (Postgres refuses root).
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { freePort } from "./stack.js";

const run = promisify(execFile);
export const PG_BIN = process.env.TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export type PgServer = { port: number; dataDir: string; adminUrl: string; url(db: string): string };

export type StandbyPair = {
  dir: string;
  primary: PgServer;
  standby: PgServer;
  /** pg_wal_replay_pause() / pg_wal_replay_resume() on the standby. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the standby at once (as a crash would). */
  stopStandby(): Promise<void>;
  stop(): Promise<void>;
};

/** True when the binaries to make a standby are on this machine. */
export const canMakeStandby = () => ["initdb", "pg_ctl", "pg_basebackup", "postgres"].every((b) => existsSync(join(PG_BIN, b)));

const asRoot = process.getuid?.() === 0;

/** Runs a Postgres binary (as `postgres` when we are root). */
async function pg(bin: string, args: string[]): Promise<string> {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(PG_BIN, bin), ...args]] : [join(PG_BIN, bin), args];
  const { stdout } = await run(file, argv, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

function server(dataDir: string, port: number): PgServer {
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return { port, dataDir, adminUrl, url: (db) => `postgresql://postgres@127.0.0.1:${port}/${db}` };
}

async function start(s: PgServer, dir: string, extra: string[] = []): Promise<void> {
  const options = [`-p ${s.port}`, "-c listen_addresses=127.0.0.1", `-k ${dir}`, "-c fsync=off", "-c full_page_writes=off", ...extra].join(" ");
  await pg("pg_ctl", ["-D", s.dataDir, "-o", options, "-l", `${s.dataDir}.log`, "-w", "-t", "60", "start"]);
}

/** Starts a primary (initdb, trust on loopback) and a standby streaming from it (pg_basebackup -R). */
export async function startStandbyPair(): Promise<StandbyPair> {
  const dir = mkdtempSync(join(tmpdir(), "agent-pg-standby-"));
  if (asRoot) chownSync(dir, Number((await run("id", ["-u", "postgres"])).stdout.trim()), Number((await run("id", ["-g", "postgres"])).stdout.trim()));
  const primary = server(join(dir, "primary"), await freePort());
  const standby = server(join(dir, "standby"), await freePort());
  const stopAll = async () => {
    for (const s of [standby, primary])
      if (existsSync(join(s.dataDir, "postmaster.pid"))) await pg("pg_ctl", ["-D", s.dataDir, "-m", "immediate", "-w", "stop"]).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pg("initdb", ["-D", primary.dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
    // The indexer and the service open many connections; a standby needs max_connections >= its primary's.
    // wal_writer_delay as docs/operations.md advises with standbys: async commits reach them within 10 ms.
    await start(primary, dir, ["-c max_connections=200", "-c wal_level=replica", "-c wal_writer_delay=10ms"]);
    await pg("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", standby.dataDir, "-R", "-X", "stream", "-c", "fast"]);
    await start(standby, dir, ["-c max_connections=200", "-c hot_standby=on"]);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const onStandby = async (statement: string) => {
    const sql = postgres(standby.adminUrl, { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(statement);
    } finally {
      await sql.end();
    }
  };
  return {
    dir,
    primary,
    standby,
    pauseReplay: () => onStandby("select pg_wal_replay_pause()"),
    resumeReplay: () => onStandby("select pg_wal_replay_resume()"),
    stopStandby: async () => void (await pg("pg_ctl", ["-D", standby.dataDir, "-m", "immediate", "-w", "stop"])),
    stop: stopAll,
  };
}
