// Benchmark: what an x402 payment adds to a run. A devnet (2 days of history, chain still) with its
// facilitator, our indexer, and the API (in this process, as api/main.ts builds it, runs in process)
// serving over loopback. N sequential POST /v1/agent/backtest/grid:
//   free   days 30, no payment
//   paid   days 60, each with a fresh x402 payment (signed before the clock starts): verify, run, settle
// The devnet holds 2 days of candles, so both replay the same candles: the difference is the payment.
// Beside them, the facilitator's own round trips, called directly (POST /verify, POST /settle with a
// fresh payment each), so that paid - free can be read against verify + settle.
// Alone: `npx tsx bench/x402-payment.ts` (X402_BENCH_N, default 40).
import { serve, type ServerType } from "@hono/node-server";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createWalletClient, getAddress, http, parseUnits, type Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { testTokenAbi } from "../abis/index.js";
import { createApp } from "../api/app.js";
import { createChainClient } from "../adapters/chain/client.js";
import { loadDeployments } from "../adapters/chain/deployments.js";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { createLogger } from "../adapters/logger.js";
import { createRedis, waitForRedis } from "../adapters/redis.js";
import { devnetChain, TEST_MNEMONIC } from "../devnet/chain.js";
import { freePort, startStack } from "../test/helpers/stack.js";
import { deleteRedisKeys, isMain, log, percentile, printMachine, printResult, saveResult, type BenchResult } from "./lib.js";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const N = Number(process.env.X402_BENCH_N ?? 40);
const PAYER = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 17 }); // no test or benchmark else uses it
const PAYEE = getAddress("0x000000000000000000000000000000000000f0f0");
const ADMIN = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 10 }); // may mint every TestToken

const ms = (t0: number) => performance.now() - t0;
const p50 = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const p99 = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    99,
  );

export async function benchX402Payment(): Promise<BenchResult> {
  log("x402-payment: starting a devnet (2 days), its facilitator and an indexer");
  const stack = await startStack({ historyDays: 2, simIntervalMs: 3_600_000 });
  const prefix = `agent_bench_x402_${Date.now()}`;
  let server: ServerType | undefined;
  const logger = createLogger({ level: "warn", base: { service: "bench-api" } });
  const db = createDb({ url: stack.databaseUrl, schema: "agent_api_bench" });
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  const redis = createRedis({ url: REDIS_URL, logger });
  try {
    await migrateToLatest(db, "agent_api_bench");
    await waitForRedis(redis);
    const deployments = loadDeployments(stack.deploymentsFile);
    const usdg = getAddress(deployments.contracts.usdg!) as Address;
    const weth = deployments.tokens.find((t) => t.symbol === "WETH")!.address;
    const chain = createChainClient(stack.rpcUrl);
    const admin = createWalletClient({
      account: ADMIN,
      chain: { ...devnetChain, rpcUrls: { default: { http: [stack.rpcUrl] } } },
      transport: http(stack.rpcUrl),
    });
    const mint = await admin.writeContract({ address: usdg, abi: testTokenAbi, functionName: "mint", args: [PAYER.address, parseUnits("1000", 6)] });
    await chain.waitForTransactionReceipt({ hash: mint });

    const app = createApp({
      db,
      reads,
      deployments,
      client: chain,
      redis,
      logger,
      now: () => new Date(),
      indexerReady: () => true,
      rateLimit: { keyPrefix: `${prefix}:rl`, points: 1_000_000 },
      payments: { facilitatorUrl: stack.facilitatorUrl, payee: PAYEE, pricePerDayUsdg: 0.01, keyPrefix: `${prefix}:pay` },
    });
    const port = await freePort();
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => resolve());
    });
    const url = `http://127.0.0.1:${port}/v1/agent/backtest/grid`;
    const body = (days: number) => JSON.stringify({ token: weth, buyPrice: 1, sellPrice: 1_000_000, amountUsd: 200, repeat: true, days });
    const post = async (days: number, headers: Record<string, string> = {}) => {
      const t0 = performance.now();
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: body(days) });
      await res.arrayBuffer();
      return { status: res.status, ms: ms(t0), settled: res.headers.get("PAYMENT-RESPONSE") !== null };
    };
    const x402 = new x402HTTPClient(x402Client.fromConfig({ schemes: [{ network: "eip155:4663", client: new ExactEvmScheme(PAYER) }], spendControls: false }));
    const offer = async (): Promise<PaymentRequired> => {
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: body(60) });
      if (res.status !== 402) throw new Error(`expected 402, got ${res.status}`);
      return x402.getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
    };

    // Warm up both paths (the resource server's first /supported, the JIT, the pools).
    for (let i = 0; i < 5; i++) await post(30);
    const required = await offer();
    const warm = await post(60, x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(required)));
    if (warm.status !== 200 || !warm.settled) throw new Error(`a paid warm-up answered ${warm.status}`);

    log(`x402-payment: ${N} free, ${N} paid, ${N} direct verify + settle`);
    const free: number[] = [];
    const paid: number[] = [];
    const signing: number[] = [];
    // Interleaved, so that both see the same machine.
    for (let i = 0; i < N; i++) {
      const f = await post(30);
      if (f.status !== 200) throw new Error(`free answered ${f.status}`);
      free.push(f.ms);
      const t0 = performance.now();
      const header = x402.encodePaymentSignatureHeader(await x402.createPaymentPayload(required));
      signing.push(ms(t0));
      const p = await post(60, header);
      if (p.status !== 200 || !p.settled) throw new Error(`paid answered ${p.status}`);
      paid.push(p.ms);
    }

    // The facilitator's two round trips, without the API.
    const facilitator = new HTTPFacilitatorClient({ url: stack.facilitatorUrl });
    const verify: number[] = [];
    const settle: number[] = [];
    for (let i = 0; i < N; i++) {
      const payload = await x402.createPaymentPayload(required);
      let t0 = performance.now();
      const v = await facilitator.verify(payload, required.accepts[0]!);
      verify.push(ms(t0));
      if (!v.isValid) throw new Error(`verify: ${v.invalidReason}`);
      t0 = performance.now();
      const s = await facilitator.settle(payload, required.accepts[0]!);
      settle.push(ms(t0));
      if (!s.success) throw new Error(`settle: ${s.errorReason}`);
    }

    const extra = p50(paid) - p50(free);
    const trips = p50(verify) + p50(settle);
    return {
      name: "x402-payment",
      figures: [
        { name: "free request (30 days) p50", value: p50(free), unit: "ms" },
        { name: "paid request (60 days, x402) p50", value: p50(paid), unit: "ms" },
        { name: "free request p99", value: p99(free), unit: "ms" },
        { name: "paid request p99", value: p99(paid), unit: "ms" },
        { name: "paid - free, p50", value: extra, unit: "ms" },
        { name: "facilitator verify p50 (direct)", value: p50(verify), unit: "ms" },
        { name: "facilitator settle p50 (direct)", value: p50(settle), unit: "ms" },
        { name: "verify + settle p50", value: trips, unit: "ms" },
        { name: "client signing p50 (not in the paid time)", value: p50(signing), unit: "ms" },
      ],
      notes: [
        `${N} of each, sequential and interleaved, over loopback; the devnet has 2 days of candles, so both runs replay the same candles.`,
        "Paid = the request carrying PAYMENT-SIGNATURE: the facilitator's verify, the Redis claim, the run, the facilitator's settle (a transaction and its receipt on the devnet), the run log's insert.",
      ],
    };
  } finally {
    server?.close();
    redis.disconnect();
    await db.destroy();
    await reads.destroy();
    await deleteRedisKeys(REDIS_URL, prefix);
    await stack.stop();
  }
}

if (isMain(import.meta.url)) {
  printMachine();
  const r = await benchX402Payment();
  printResult(r);
  saveResult(r);
  process.exit(0);
}
