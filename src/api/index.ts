// Ponder's own server, for analysts: GraphQL at /graphql and SQL over HTTP at /sql (read-only).
// The agent API lives in api/ and is a separate process.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { Hono } from "hono";
import { client, graphql } from "ponder";

const app = new Hono();

app.use("/sql/*", client({ db, schema }));
app.use("/graphql", graphql({ db, schema }));

export default app;
