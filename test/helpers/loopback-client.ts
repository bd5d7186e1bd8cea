// HTTP as a given client: each request leaves from the loopback source address `from` (127.0.0.x; the
// whole 127.0.0.0/8 range is on `lo`), so the server sees different clients by their socket address,
// as it would see different hosts, with nothing in the request claiming who it is.
import { request as httpRequest, Agent } from "node:http";

export type LoopbackAnswer = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any };

export type LoopbackInit = { method?: string; headers?: Record<string, string>; body?: string | Buffer };

const agents = new Map<string, Agent>();
/** One keep-alive pool per source address (a client reuses its connections, as real ones do). */
function agentFor(from: string): Agent {
  let agent = agents.get(from);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 16, localAddress: from } as ConstructorParameters<typeof Agent>[0]);
    agents.set(from, agent);
  }
  return agent;
}

/** `url` requested from the source address `from`. */
export function requestFrom(from: string, url: string, init: LoopbackInit = {}): Promise<LoopbackAnswer> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
    const req = httpRequest(
      url,
      {
        method: init.method ?? (body ? "POST" : "GET"),
        agent: agentFor(from),
        headers: { ...(body ? { "content-type": "application/json", "content-length": String(body.length) } : {}), ...init.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`${url}: no answer in 60 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Closes every pooled connection (at the end of a test file). */
export function closeLoopbackClients(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}
