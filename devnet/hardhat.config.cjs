// Hardhat is used only as the in-process EVM (EDR) of the devnet; contracts are compiled with solc-js.
const start = process.env.DEVNET_GENESIS_TIME ? new Date(Number(process.env.DEVNET_GENESIS_TIME) * 1000).toISOString() : undefined;
module.exports = {
  networks: {
    hardhat: {
      chainId: 4663,
      // Prague: EIP-7702 accounts (type-4 transactions) for the atomic batches of modern wallets.
      hardfork: "prague",
      initialDate: start,
      allowUnlimitedContractSize: true,
      blockGasLimit: 60_000_000,
      accounts: { mnemonic: "test test test test test test test test test test test junk", count: 20, accountsBalance: "1000000000000000000000000" },
      mining: { auto: true, interval: 0 },
    },
  },
};
