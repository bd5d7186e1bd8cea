// Redis under Sentinel, of the test's own: a master and one replica (`redis-server`, nothing persisted)
// and three sentinels (`redis-server <conf> --sentinel`, their config files in a temp folder, which
// they rewrite), all on free loopback ports. Quorum 2, a master down after 1 s.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort, waitFor } from "./stack.js";

export const SENTINEL_NAME = "agenttest";

export type SentinelGroup = {
  /** REDIS_SENTINELS for the processes. */
  sentinelsEnv: string;
  masterPort: number;
  replicaPort: number;
  log: string[];
  /** The port the sentinels name as the master now. */
  masterNow(): Promise<number | undefined>;
  /** SIGKILL of the master (a crash). */
  killMaster(): Promise<void>;
  stop(): Promise<void>;
};

export async function startSentinelGroup(): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), "agent-sentinel-"));
  const log: string[] = [];
  const children: ChildProcess[] = [];
  const run = (name: string, args: string[]) => {
    const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) if (line.trim()) log.push(`${name}| ${line}`);
      if (log.length > 2000) log.splice(0, log.length - 2000);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    children.push(child);
    return child;
  };
  const [masterPort, replicaPort] = [await freePort(), await freePort()];
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  const master = run("redis-master", ["--port", String(masterPort), ...common]);
  run("redis-replica", ["--port", String(replicaPort), "--replicaof", "127.0.0.1", String(masterPort), ...common]);
  for (const [i, port] of sentinelPorts.entries()) {
    const conf = join(dir, `sentinel-${i}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
        "",
      ].join("\n"),
    );
    run(`sentinel-${i}`, [conf, "--sentinel"]);
  }
  const ask = async <T>(port: number, command: string[]): Promise<T> => {
    const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await client.connect();
      return (await client.call(command[0]!, ...command.slice(1))) as T;
    } finally {
      client.disconnect();
    }
  };
  const group: SentinelGroup = {
    sentinelsEnv: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(","),
    masterPort,
    replicaPort,
    log,
    async masterNow() {
      for (const port of sentinelPorts) {
        const addr = await ask<[string, string] | null>(port, ["SENTINEL", "get-master-addr-by-name", SENTINEL_NAME]).catch(() => null);
        if (addr) return Number(addr[1]);
      }
      return undefined;
    },
    async killMaster() {
      if (master.exitCode !== null || master.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        master.once("exit", () => resolve());
        master.kill("SIGKILL");
      });
    },
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once("exit", () => resolve());
              c.kill("SIGKILL");
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Ready: the replica in sync, and every sentinel knows the replica and the two other sentinels.
    await waitFor(
      "Redis master, replica and sentinels",
      async () => {
        const info = await ask<string>(replicaPort, ["INFO", "replication"]);
        if (!info.includes("master_link_status:up")) return false;
        for (const port of sentinelPorts) {
          const replicas = await ask<unknown[]>(port, ["SENTINEL", "replicas", SENTINEL_NAME]);
          const sentinels = await ask<unknown[]>(port, ["SENTINEL", "sentinels", SENTINEL_NAME]);
          if (replicas.length < 1 || sentinels.length < 2) return false;
        }
        return true;
      },
      30_000,
      log,
    );
  } catch (error) {
    await group.stop();
    throw error;
  }
  return group;
}
