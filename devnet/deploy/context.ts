// What every family's deploy function gets: the chain, the compiled artifacts and a deployer.
import { getAddress, type Abi, type Address, type Hex } from "viem";
import type { Chain } from "../chain.js";
import { roles, accountAddress } from "../chain.js";
import type { Artifacts } from "../compile.js";

export type DeployContext = {
  chain: Chain;
  artifacts: Artifacts;
  /** The service's admin and deployer (mnemonic index 10). */
  admin: Address;
  /** The keeper (mnemonic index 11): fills, settles, harvests. */
  keeper: Address;
  deploy(name: string, args?: readonly unknown[]): Promise<Address>;
  /** Sends a transaction from `from` (default: admin) and waits for a successful receipt. */
  send(to: Address, abi: Abi, functionName: string, args?: readonly unknown[], from?: Address): Promise<Hex>;
};

export function deployContext(chain: Chain, artifacts: Artifacts): DeployContext {
  const admin = accountAddress(roles.deployer);
  const keeper = accountAddress(roles.keeper);
  const adminWallet = chain.walletFor(roles.deployer);
  const wait = async (hash: Hex) => {
    // With automine the receipt exists at once; polling for it would cost a polling interval per send.
    const receipt = await chain.publicClient
      .getTransactionReceipt({ hash })
      .catch(() => chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 }));
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  return {
    chain,
    artifacts,
    admin,
    keeper,
    async deploy(name, args = []) {
      const artifact = artifacts[name];
      if (!artifact) throw new Error(`no compiled contract named ${name}`);
      const hash = await adminWallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: args as unknown[] });
      const receipt = await wait(hash);
      return getAddress(receipt.contractAddress!);
    },
    async send(to, abi, functionName, args = [], from = admin) {
      const wallet = from === admin ? adminWallet : chain.walletFor(indexOf(from));
      // An explicit gas limit spares the node an estimate (a second execution) per transaction.
      const hash = await wallet.writeContract({ address: to, abi, functionName, args: args as unknown[], chain: wallet.chain, account: from, gas: 30_000_000n });
      await wait(hash);
      return hash;
    },
  };
}

function indexOf(address: Address): number {
  for (let i = 0; i < 20; i++) if (accountAddress(i) === address) return i;
  throw new Error(`${address} is not a devnet account`);
}
