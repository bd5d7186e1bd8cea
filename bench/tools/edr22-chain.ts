// Evaluation only (tools/seed-inprocess.ts with ENGINE=edr22): a devnet chain on EDR 0.22, the engine of
// Hardhat 3, driven directly, in the shape of devnet/chain.ts. It is not a dependency of the project:
// install it aside first, `npm install --prefix /tmp/edr22 @nomicfoundation/edr@0.22.0
// @nomicfoundation/edr-linux-x64-gnu@0.22.0` (it declares Node >= 22 but loads on Node 20), or set EDR22_DIR.
import { createRequire } from "node:module";
import { toHex, type EIP1193Provider } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { accountAddress, clientsFor, TEST_MNEMONIC } from "../../devnet/chain.js";

export async function startChain22({ genesisTime }: { genesisTime: number }) {
  const req = createRequire(`${process.env.EDR22_DIR ?? "/tmp/edr22"}/node_modules/index.js`);
  const edr = req("@nomicfoundation/edr");
  const ctxEdr = new edr.EdrContext();
  await ctxEdr.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
  const keys = Array.from({ length: 20 }, (_, i) => toHex(mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!));
  const genesisState = [
    ...edr.l1GenesisState(edr.L1Hardfork.Cancun),
    ...keys.map((_, i) => ({ address: Buffer.from(accountAddress(i).slice(2), "hex"), balance: 10n ** 24n })),
  ];
  const provider = await ctxEdr.createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: true,
      bailOnCallFailure: true,
      bailOnTransactionFailure: true,
      chainId: 4663n,
      coinbase: Buffer.from("c014ba5ec014ba5ec014ba5ec014ba5ec014ba5e", "hex"),
      defaultTransactionGasLimit: 30_000_000n,
      genesisState,
      hardfork: edr.l1HardforkToString(edr.L1Hardfork.Cancun),
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, blockGasLimit: 60_000_000n, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 60_000_000n, genesisBlockTime: BigInt(genesisTime) },
      networkId: 4663n,
      observability: {},
      ownedAccounts: keys,
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  );
  const eip1193 = {
    async request({ method, params }: { method: string; params?: unknown[] }) {
      const res = await provider.handleRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: params ?? [] }));
      const data = typeof res.data === "string" ? JSON.parse(res.data) : res.data;
      if (data.error) throw Object.assign(new Error(data.error.message), { code: data.error.code, data: data.error.data });
      return data.result;
    },
    on() {},
    removeListener() {},
  } as unknown as EIP1193Provider;
  return { provider: eip1193, ...clientsFor(eip1193), serve: async () => ({ close: async () => {} }) };
}
