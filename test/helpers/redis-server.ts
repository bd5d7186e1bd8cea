// A Redis server of the test's own (`redis-server` on a free port, nothing persisted), so a test can
// stop it and start it again on the same port without touching the shared Redis.
import { spawn, type ChildProcess } from "node:child_process";
import { createConnection } from "node:net";
import { freePort, waitFor } from "./stack.js";

export type RedisServer = {
  port: number;
  url: string;
  log: string[];
  /** Starts (again) on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGKILL: gone at once, as a crashed server is (all data lost: nothing is persisted). */
  kill(): Promise<void>;
};

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      socket.destroy();
      resolve(d.toString().startsWith("+PONG"));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const log: string[] = [];
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    log,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
      const keep = (chunk: Buffer) => {
        for (const line of chunk.toString().split("\n")) if (line.trim()) log.push(`redis| ${line}`);
      };
      child.stdout!.on("data", keep);
      child.stderr!.on("data", keep);
      await waitFor(`redis-server on ${port}`, () => ping(port), 15_000, log);
    },
    async kill() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once("exit", () => resolve());
        c.kill("SIGKILL");
      });
    },
  };
  await server.start();
  return server;
}
