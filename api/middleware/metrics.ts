// Prometheus metrics of the HTTP side: a request counter and a latency histogram, labelled by
// method, route pattern (never the raw path) and status, recorded by `observeRequests`.
// Long polls (GET …/activity with a cursor and waitMs > 0, up to 30 s by design) are timed in
// their own histogram, http_long_poll_duration_seconds, so that their waits do not bend the p99 of
// http_request_duration_seconds; they are counted in http_requests_total as every request.
// `GET /metrics` serves the registry.
import type { Handler } from "hono";
import { Counter, Histogram, type Metric, Registry } from "prom-client";
import { collectProcessMetrics } from "../../adapters/process-metrics.js";

type Labels = "method" | "route" | "status";

export type HttpMetrics = {
  registry: Registry;
  /** Counts an answered request and its latency (`observeRequests` calls it once per request); a long poll's latency goes to its own histogram. */
  record(method: string, route: string, status: number, seconds: number, longPoll?: boolean): void;
  /** The handler of GET /metrics. */
  handler: Handler;
};

/** `metric` registered in `registry`, or the metric of its name already there: apps that share a registry share it. */
function registered<M extends Metric>(registry: Registry, metric: M): M {
  // prom-client sets `name` on every metric; its types leave it out.
  const existing = registry.getSingleMetric((metric as unknown as { name: string }).name);
  if (existing) return existing as M;
  registry.registerMetric(metric);
  return metric;
}

// Each made with `registers: []` (not in prom-client's global registry), then registered once above.
const counter = (registry: Registry): Counter<Labels> =>
  registered(registry, new Counter({ name: "http_requests_total", help: "HTTP requests answered", labelNames: ["method", "route", "status"], registers: [] }));

/** A latency histogram of HTTP answers, labelled as the request counter. */
const httpHistogram = (registry: Registry, name: string, help: string, buckets: number[]): Histogram<Labels> =>
  registered(registry, new Histogram({ name, help, labelNames: ["method", "route", "status"], buckets, registers: [] }));

/** Answers take 1 ms to 10 s. */
const ANSWER_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Long polls wait up to 30 s (MAX_WAIT_MS) by design: one that waits it out lands below the top bucket. */
const LONG_POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30, 35];
const LONG_POLL_HELP = "Time to answer a long poll (GET activity with a cursor and waitMs > 0), which waits up to 30 s for a change";

const histogram = (registry: Registry) => httpHistogram(registry, "http_request_duration_seconds", "Time to answer an HTTP request", ANSWER_BUCKETS);
const longPollHistogram = (registry: Registry) => httpHistogram(registry, "http_long_poll_duration_seconds", LONG_POLL_HELP, LONG_POLL_BUCKETS);

/** Answers of the cached read routes (accounts, activity) by result: hit, miss, or bypass (tracker unusable, long poll). */
export function readCacheCounter(registry: Registry): Counter<"route" | "result"> {
  return registered(
    registry,
    new Counter({
      name: "api_read_cache_total",
      help: "Read answers served from the in-process cache (hit), read from Postgres with the cache on (miss), or bypassing it (bypass)",
      labelNames: ["route", "result"],
      registers: [],
    }),
  );
}

export function createHttpMetrics(options: { registry?: Registry; defaultMetrics?: boolean; extra?: () => Promise<string> } = {}): HttpMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics && !registry.getSingleMetric("process_cpu_seconds_total")) collectProcessMetrics(registry);
  const requests = counter(registry);
  const duration = histogram(registry);
  const longPolls = longPollHistogram(registry);

  // The labelled children per (method, route, status), kept: prom-client otherwise hashes the label
  // object on every observation. Bounded: routes are patterns and statuses few.
  const children = new Map<string, { observe: (seconds: number) => void; inc: () => void }>();
  const childOf = (method: string, route: string, status: string, longPoll: boolean) => {
    const key = `${method} ${route} ${status}${longPoll ? " long" : ""}`;
    let child = children.get(key);
    if (!child) {
      const h = (longPoll ? longPolls : duration).labels(method, route, status);
      const r = requests.labels(method, route, status);
      child = { observe: (seconds) => h.observe(seconds), inc: () => r.inc() };
      children.set(key, child);
    }
    return child;
  };

  const record = (method: string, route: string, status: number, seconds: number, longPoll = false) => {
    const child = childOf(method, route, String(status), longPoll);
    child.observe(seconds);
    child.inc();
  };

  const handler: Handler = async (c) => {
    const text = await registry.metrics();
    return c.body(options.extra ? text + (await options.extra()) : text, 200, { "Content-Type": registry.contentType });
  };

  return { registry, record, handler };
}
