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
      // Automine makes a block per transaction: at more than one a second, each block a second after the
      // last would run the chain's clock ahead of the wall clock (8 minutes in 10 of the soak's traffic), and
      // filings (wall clock) would stop matching calls, payments (validBefore) expire. Blocks share a second instead.
      allowBlocksWithSameTimestamp: true,
    },
  },
};
