// A TCP proxy a test can cut and restore: put it between a service and Postgres, Redis or the chain RPC
// to take the dependency away without touching its process. `cut()` drops every open connection and
// refuses new ones (as a dead host does); `restore()` accepts again on the same port. `delayMs` holds
// each chunk from the client that long before passing it on (a slow dependency, e.g. to catch a job
// mid-flight), without any test-only branch in the service.
import { createServer, connect, type Server, type Socket } from "node:net";
import { freePort } from "./stack.js";

export type TcpProxy = {
  port: number;
  /** host:port of the proxy, for building a URL. */
  address: string;
  /** Chunks from the client wait this long before going to the target (0: none). */
  delayMs: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
  /** Connections accepted since start. */
  accepted(): number;
  /** Bytes received from clients since start (traffic: e.g. a worker's job has reached its RPC). */
  bytesIn(): number;
};

/** A proxy to targetHost:targetPort on listenHost (a loopback address of its own: another "host") and a free port. */
export async function startTcpProxy(targetHost: string, targetPort: number, port?: number, listenHost = "127.0.0.1"): Promise<TcpProxy> {
  const listenPort = port ?? (await freePort());
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let accepted = 0;
  let bytesIn = 0;
  const proxy: TcpProxy = {
    port: listenPort,
    address: `${listenHost}:${listenPort}`,
    delayMs: 0,
    cut,
    restore: listen,
    close: cut,
    accepted: () => accepted,
    bytesIn: () => bytesIn,
  };

  function pipe(client: Socket) {
    accepted++;
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.on("data", (chunk) => {
      bytesIn += chunk.length;
      if (proxy.delayMs <= 0) return void upstream.write(chunk);
      // Order is kept: each chunk waits the same delay, so timers fire in arrival order.
      setTimeout(() => {
        if (!upstream.destroyed) upstream.write(chunk);
      }, proxy.delayMs);
    });
    upstream.pipe(client);
  }

  function listen(): Promise<void> {
    if (server) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const s = createServer(pipe);
      s.once("error", reject);
      s.listen(listenPort, listenHost, () => {
        server = s;
        resolve();
      });
    });
  }

  function cut(): Promise<void> {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    return s ? new Promise((resolve) => s.close(() => resolve())) : Promise.resolve();
  }

  await listen();
  return proxy;
}
