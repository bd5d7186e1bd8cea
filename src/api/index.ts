// Ponder's own server, for analysts: GraphQL at /graphql and SQL over HTTP at /sql (read-only); for operators,
// the indexing code's counters at /indexer-metrics.
// The agent API lives in api/ and is a separate process.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { Hono } from "hono";
import { client, graphql } from "ponder";
import { register } from "prom-client";

const app = new Hono();

app.use("/sql/*", client({ db, schema }));
app.use("/graphql", graphql({ db, schema }));
// The indexing code's own counters (src/batch-bound.ts), beside Ponder's /metrics.
app.get("/indexer-metrics", async (c) => c.text(await register.metrics(), 200, { "content-type": register.contentType }));

export default app;
