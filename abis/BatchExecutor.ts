// Generated from devnet/contracts by `npm run compile`; a test checks it matches the compiled contract.
export const batchExecutorAbi = [
  {
    "inputs": [
      {
        "internalType": "bytes32",
        "name": "mode",
        "type": "bytes32"
      },
      {
        "internalType": "bytes",
        "name": "executionData",
        "type": "bytes"
      }
    ],
    "name": "execute",
    "outputs": [],
    "stateMutability": "payable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "bytes32",
        "name": "mode",
        "type": "bytes32"
      }
    ],
    "name": "supportsExecutionMode",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "pure",
    "type": "function"
  },
  {
    "stateMutability": "payable",
    "type": "receive"
  }
] as const;
