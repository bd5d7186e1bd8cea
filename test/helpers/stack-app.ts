// The API in process on a running stack, as most e2e files open it in beforeAll: a database and Redis of its
// own, the stack's views, deployments and chain, and a validator of the served OpenAPI document; close() undoes it.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import type { PublicClient } from "viem";
import { createChainClient } from "../../adapters/chain/client.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { connectRedis, createTestDatabase, deleteKeys, migratedDb, testApp, type TestAppParameters, type TestDatabase } from "../api/support.js";
import { fetchOpenApi, responseValidator, type OpenApiDocument, type ResponseValidator } from "./openapi-validate.js";
import type { Stack } from "./stack.js";
import { publicClientAt } from "./wallets.js";

export type StackApp = {
  database: TestDatabase;
  db: Kysely<Database>;
  reads: Kysely<Projections>;
  redis: Redis;
  d: Deployments;
  /** A public client on the stack's devnet. */
  chain: PublicClient;
  app: ReturnType<typeof testApp>;
  doc: OpenApiDocument;
  validator: ResponseValidator;
  close(): Promise<void>;
};

export type StackAppOptions = {
  /** Redis keys under it are deleted on close (give the app `rateLimit: { keyPrefix: `${prefix}:rl` }`). */
  prefix?: string;
  /** The app reads the chain through a client (15 s per request); false: no chain client, as routes without one. */
  chainClient?: boolean;
  /** More of the app's dependencies. */
  app?: Partial<TestAppParameters>;
};

/** Opens the app on `stack`; on a failure, what was made is removed before the error is thrown. */
export async function openStackApp(stack: Stack, { prefix, chainClient = true, app: more = {} }: StackAppOptions = {}): Promise<StackApp> {
  const made: Partial<StackApp> = {};
  const close = async () => {
    if (prefix && made.redis) await deleteKeys(made.redis, prefix);
    made.redis?.disconnect();
    await made.reads?.destroy();
    await made.db?.destroy();
    await made.database?.drop();
  };
  try {
    made.database = await createTestDatabase();
    made.db = await migratedDb(made.database);
    made.reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
    made.redis = await connectRedis();
    made.d = loadDeployments(stack.deploymentsFile);
    made.chain = publicClientAt(stack.rpcUrl);
    const { db, redis, reads, d } = made;
    const client = chainClient ? { client: createChainClient(stack.rpcUrl, { timeoutMs: 15_000 }) } : {};
    made.app = testApp({ db, redis, reads, deployments: d, ...client, ...more });
    made.doc = await fetchOpenApi(made.app.app);
    made.validator = responseValidator(made.doc);
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { ...(made as Omit<StackApp, "close">), close };
}
