// The soak's users reach the API replicas as through a load balancer: round robin, and a replica that
// refuses the connection (killed, restarting) is skipped for the next. Every answer is recorded: status,
// Retry-After, the error code, so the invariants can judge each 5xx against the fault windows.

export type Answer = { at: number; route: string; status: number; retryAfter: boolean; code?: string };

export type Balancer = {
  bases: string[];
  /** Answers of status 400 and up (the others are only counted). */
  answers: Answer[];
  /** Answers by status. */
  counts: Map<number, number>;
  /** Requests no replica answered (connection refused or reset on every one). */
  unreachable: { at: number; route: string; error: string }[];
  request(route: string, path: string, init?: RequestInit & { client?: string }): Promise<{ status: number; body: any; headers: Headers } | undefined>;
};

export function balancer(bases: string[]): Balancer {
  let next = 0;
  const b: Balancer = {
    bases,
    answers: [],
    counts: new Map(),
    unreachable: [],
    async request(route, path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.client) headers.set("X-Forwarded-For", init.client);
      let last = "";
      for (let tries = 0; tries < bases.length; tries++) {
        const base = bases[next++ % bases.length]!;
        let res: Response;
        try {
          res = await fetch(`${base}${path}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(60_000) });
        } catch (error) {
          last = (error as Error).cause ? String((error as Error & { cause: Error }).cause.message) : (error as Error).message;
          continue; // as a load balancer does: the next replica
        }
        const text = await res.text().catch(() => "");
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        const code = typeof body === "object" && body ? (body.error?.code ?? body.code) : undefined;
        b.counts.set(res.status, (b.counts.get(res.status) ?? 0) + 1);
        if (res.status >= 400) b.answers.push({ at: Date.now(), route, status: res.status, retryAfter: res.headers.has("Retry-After"), code });
        return { status: res.status, body, headers: res.headers };
      }
      b.unreachable.push({ at: Date.now(), route, error: last });
      return undefined;
    },
  };
  return b;
}
