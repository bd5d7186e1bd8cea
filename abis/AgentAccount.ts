// Generated from devnet/contracts by `npm run compile`; a test checks it matches the compiled contract.
export const agentAccountAbi = [
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "owner_",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "agent_",
        "type": "address"
      },
      {
        "components": [
          {
            "internalType": "uint256",
            "name": "floorX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "ceilingX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "budgetUsdg",
            "type": "uint256"
          },
          {
            "internalType": "uint16",
            "name": "feeCapBps",
            "type": "uint16"
          },
          {
            "internalType": "uint16",
            "name": "minSpreadBps",
            "type": "uint16"
          }
        ],
        "internalType": "struct Limits",
        "name": "limits_",
        "type": "tuple"
      },
      {
        "internalType": "contract LadderStrategy",
        "name": "ladderStrategy_",
        "type": "address"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "constructor"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "token",
        "type": "address"
      }
    ],
    "name": "SafeERC20FailedOperation",
    "type": "error"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "account",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "agent",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "bytes4",
        "name": "selector",
        "type": "bytes4"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "committedUsdg",
        "type": "uint256"
      }
    ],
    "name": "AgentCall",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "account",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "floorX18",
        "type": "uint256"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "ceilingX18",
        "type": "uint256"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "budgetUsdg",
        "type": "uint256"
      },
      {
        "indexed": false,
        "internalType": "uint16",
        "name": "feeCapBps",
        "type": "uint16"
      },
      {
        "indexed": false,
        "internalType": "uint16",
        "name": "minSpreadBps",
        "type": "uint16"
      }
    ],
    "name": "LimitsSet",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "account",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "token",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      }
    ],
    "name": "Withdrawn",
    "type": "event"
  },
  {
    "inputs": [],
    "name": "agent",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "committedUsdg",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "factory",
    "outputs": [
      {
        "internalType": "contract IAgentAccountFactory",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "bytes",
        "name": "data",
        "type": "bytes"
      }
    ],
    "name": "ladder",
    "outputs": [
      {
        "internalType": "bytes",
        "name": "ret",
        "type": "bytes"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "ladderStrategy",
    "outputs": [
      {
        "internalType": "contract LadderStrategy",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "limits",
    "outputs": [
      {
        "components": [
          {
            "internalType": "uint256",
            "name": "floorX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "ceilingX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "budgetUsdg",
            "type": "uint256"
          },
          {
            "internalType": "uint16",
            "name": "feeCapBps",
            "type": "uint16"
          },
          {
            "internalType": "uint16",
            "name": "minSpreadBps",
            "type": "uint16"
          }
        ],
        "internalType": "struct Limits",
        "name": "",
        "type": "tuple"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "owner",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "components": [
          {
            "internalType": "uint256",
            "name": "floorX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "ceilingX18",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "budgetUsdg",
            "type": "uint256"
          },
          {
            "internalType": "uint16",
            "name": "feeCapBps",
            "type": "uint16"
          },
          {
            "internalType": "uint16",
            "name": "minSpreadBps",
            "type": "uint16"
          }
        ],
        "internalType": "struct Limits",
        "name": "limits_",
        "type": "tuple"
      }
    ],
    "name": "setLimits",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "usdg",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "token",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      }
    ],
    "name": "withdraw",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;
