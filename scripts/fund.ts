// `npm run fund -- <address> [USDG amount] [SYMBOL[=amount] ...]`: funds a wallet from the devnet's faucet
// (devnet/faucet.ts) with ETH for gas, USDG (1,000 unless given) and any listed token named (its default
// amount unless given), e.g. `npm run fund -- 0xabc… 500 WETH=0.5 tsAAPL`. On the devnet only: with RPC_URL
// set there is no faucet, and nothing is asked of anyone.
import { config, devnetFaucetUrl, redactUrl } from "../adapters/config.js";

const USAGE = "usage: npm run fund -- <address> [USDG amount] [SYMBOL[=amount] ...]   e.g. npm run fund -- 0xabc… 500 WETH=0.5 tsAAPL";

/** The faucet request of the command line's arguments. */
function fundRequest(args: string[]): { address: string; usdg?: string; tokens?: Record<string, string | null> } {
  const [address, ...rest] = args;
  if (!address || address === "--help" || address === "-h") throw new Error(USAGE);
  const request: ReturnType<typeof fundRequest> = { address };
  for (const arg of rest) {
    if (/^[\d.]+$/.test(arg) && request.usdg === undefined && !request.tokens) request.usdg = arg;
    else {
      const [symbol, amount] = arg.split("=");
      request.tokens = { ...request.tokens, [symbol!]: amount ?? null };
    }
  }
  return request;
}

async function main(): Promise<number> {
  const url = devnetFaucetUrl(config);
  if (!url) {
    console.error(`no faucet: RPC_URL is set (${redactUrl(config.RPC_URL!)}), and the faucet exists only on the devnet. Fund the wallet on that chain.`);
    return 2;
  }
  let request: ReturnType<typeof fundRequest>;
  try {
    request = fundRequest(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const res = await fetch(`${url}/fund`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) }).catch(
    (error: Error) => error,
  );
  if (res instanceof Error) {
    console.error(`no devnet faucet answers at ${url} (${res.message}): start the devnet (npm start, or npm run devnet), or set DEVNET_FAUCET_PORT`);
    return 1;
  }
  const answer = (await res.json().catch(() => ({}))) as {
    data?: { address: string; given: { symbol: string; amount: string }[]; transactions: string[]; remaining: number };
    error?: string;
    code?: string;
  };
  if (!res.ok || !answer.data) {
    const retry = res.headers.get("retry-after");
    console.error(`refused (${res.status} ${answer.code ?? ""}): ${answer.error ?? "no answer"}${retry ? ` (retry after ${retry} s)` : ""}`);
    return 1;
  }
  const { data } = answer;
  console.log(`funded ${data.address}: ${data.given.map((g) => `${g.amount} ${g.symbol}`).join(", ")}`);
  console.log(`  ${data.transactions.length} transactions; ${data.remaining} grants left for this machine this hour`);
  return 0;
}

process.exitCode = await main();
