// Node/V8 flags of the API process, given on the command line by whatever starts it: package.json's
// `api` script, scripts/start.ts, and the tests' and benchmarks' process helpers.

/**
 * A larger young generation. Every read allocates short-lived objects (the request, Hono's context,
 * the answer's strings and headers); with V8's default 16 MiB semi-spaces the API scavenges every
 * few milliseconds under load. With 64 MiB ones it scavenges a quarter as often, and its CPU per
 * cached read drops by about a sixth (bench/README.md), for at most 96 MiB more memory.
 *
 * Sized at start, not grown: V8 doubles the young generation each time as many bytes as it holds have
 * survived scavenges since its last step, so under traffic whose objects mostly die young it can step up
 * (32 to 64 MiB semi-spaces: +64 MiB of RSS at once) long after start, and it shrinks when traffic
 * pauses. Memory that steps up an hour in looks like a leak to an operator (and to the soak's memory
 * row: session 30's api2 grew 57 MiB); a young generation taken at start does not step.
 */
export const API_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64", "--min-semi-space-size=64"];
