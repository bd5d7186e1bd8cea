// GET /v1/agent/policies/{privy,turnkey}: the documents for the app's deployments, against the served
// OpenAPI document; `wallet` fills the placeholder; a bad wallet is 400.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../adapters/db/api-schema.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, noDeployments, randomPrefix, testApp, type TestDatabase } from "./support.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";

const prefix = randomPrefix();
let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;
const deployments = {
  ...noDeployments,
  contracts: {
    usdg: "0x00000000000000000000000000000000000000A1",
    limitOrderHook: "0x00000000000000000000000000000000000000A2",
    gridStrategy: "0x00000000000000000000000000000000000000A3",
    basketZap: "0x00000000000000000000000000000000000000A4",
  },
  vaults: [
    { address: "0x00000000000000000000000000000000000000B1", family: "merged", name: "m", token: "0x00000000000000000000000000000000000000C1", agent: true },
  ],
} as typeof noDeployments;
const WALLET = "0xAbCdEf0000000000000000000000000000000001";

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  t = testApp({ db, redis, deployments, rateLimit: { keyPrefix: `${prefix}:rl` } });
  validator = responseValidator(await fetchOpenApi(t.app));
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

describe("policy routes", () => {
  for (const provider of ["privy", "turnkey"] as const) {
    it(`${provider}: the document, with and without a wallet`, async () => {
      const path = `/v1/agent/policies/${provider}`;
      const open = await t.app.request(path);
      const body = await json(open);
      expect(open.status).toBe(200);
      expect(validator.errors("get", path, 200, body)).toEqual([]);
      expect(body.data).toMatchObject({ provider, chainId: 4663, wallet: null });
      expect(JSON.stringify(body.data.policies)).toContain("{{WALLET_ADDRESS}}");
      // The document's addresses are checksummed; the conditions keep them lowercase.
      expect(body.data.contracts.usdg).toBe("0x00000000000000000000000000000000000000A1");
      expect(body.data.contracts.vaults[0].address).toBe("0x00000000000000000000000000000000000000B1");
      expect(JSON.stringify(body.data.policies)).toContain("0x00000000000000000000000000000000000000a1".slice(2));
      expect(JSON.stringify(body.data.policies)).not.toContain("00000000000000000000000000000000000000A1");
      const filled = await json(await t.app.request(`${path}?wallet=${WALLET.toLowerCase()}`));
      expect(validator.errors("get", path, 200, filled)).toEqual([]);
      expect(filled.data.wallet).toBe(getAddress(WALLET));
      expect(JSON.stringify(filled.data.policies)).toContain(WALLET.toLowerCase().slice(2));
      expect(JSON.stringify(filled.data.policies)).not.toContain("{{WALLET_ADDRESS}}");
      const bad = await t.app.request(`${path}?wallet=0x12`);
      expect([bad.status, (await json(bad)).code]).toEqual([400, "INVALID_REQUEST"]);
    });
  }
});
