// Node/V8 flags of the API process, given on the command line by whatever starts it: package.json's
// `api` script, scripts/start.ts, and the tests' and benchmarks' process helpers.

/**
 * A larger young generation. Every read allocates short-lived objects (the request, Hono's context,
 * the answer's strings and headers); with V8's default 16 MiB semi-spaces the API scavenges every
 * few milliseconds under load. With 64 MiB ones it scavenges a quarter as often, and its CPU per
 * cached read drops by about a sixth (bench/README.md), for at most 96 MiB more memory.
 */
export const API_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64"];

/**
 * Environment of the API process, set by whatever starts it, as its flags are. glibc gives each
 * thread that mallocs (libuv's pool, V8's compiler and GC helpers) an arena of its own, up to eight
 * per core, and each holds on to the memory it freed: the API's memory outside the JavaScript heap
 * rose for an hour in the soak (bench/README.md). Two arenas bound what freed memory can sit in.
 */
export const API_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };
