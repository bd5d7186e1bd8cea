// How the devnet's facilitator judges a payment's signature, and says why it refused one.
//
// A signature is the payer's (`from`'s) when it recovers to the payer (ECDSA: a plain wallet, or one
// delegated with EIP-7702, which keeps its key) or, failing that, when the payer's code accepts it (ERC-1271:
// a contract wallet); an account not deployed yet may wrap its signature in ERC-6492 (factory + calldata),
// and the facilitator deploys it with an allowed factory before settling. That is the order USDG checks on
// chain (devnet/contracts/core/TestToken.sol), so what verifies here settles there.
//
// @x402/evm 2.27 asks only ERC-1271 of a payer with code, an EIP-7702 account included; its readContract is
// given here with the ECDSA check first (ecdsaFirst), so such a wallet's own signature is taken as the token
// takes it.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import {
  getAddress,
  hashTypedData,
  isAddressEqual,
  parseErc6492Signature,
  recoverAddress,
  size,
  sliceHex,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { CHAIN_ID } from "../domain/chain.js";
import { smartAccountAbi } from "../abis/index.js";

export const ERC1271_MAGIC_VALUE = "0x1626ba7e";

// ERC-1271's one function, as the devnet's smart account (abis/) declares it: the same for any contract wallet.
const ERC1271_ABI = smartAccountAbi;

const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** The delegate of an EIP-7702 account (code 0xef0100 ‖ delegate), or undefined for any other code. */
export function delegateOf(code: Hex | undefined): Address | undefined {
  if (!code || size(code) !== 23 || !code.toLowerCase().startsWith("0xef0100")) return undefined;
  return getAddress(sliceHex(code, 3));
}

/** The signer of a 65-byte ECDSA signature over `digest`, or undefined when it is not one. */
async function recovered(digest: Hex, signature: Hex): Promise<Address | undefined> {
  if (size(signature) !== 65) return undefined;
  return recoverAddress({ hash: digest, signature }).catch(() => undefined);
}

type ReadContract = (args: { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }) => Promise<unknown>;

/**
 * x402's reads, with ERC-1271's question answered first by ECDSA: when the signature recovers to the account
 * asked, it is the account's own (its key signed), whatever its code would say; otherwise the code is asked.
 */
export function ecdsaFirst(read: ReadContract): ReadContract {
  return async (args) => {
    if (args.functionName === "isValidSignature" && args.args?.length === 2) {
      const [digest, signature] = args.args as [Hex, Hex];
      const signer = await recovered(digest, signature);
      if (signer && isAddressEqual(signer, args.address)) return ERC1271_MAGIC_VALUE;
    }
    return read(args);
  };
}

type Eip3009 = { authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex };

/** The EIP-3009 authorization and signature of a payload, when it carries them. */
function eip3009Of(payload: PaymentPayload): Eip3009 | undefined {
  const p = payload.payload as Partial<Eip3009>;
  return p?.authorization && typeof p.signature === "string" ? (p as Eip3009) : undefined;
}

/** What the payer's code answered to ERC-1271 for `digest`, in words. */
async function erc1271Answer(client: PublicClient, payer: Address, digest: Hex, signature: Hex): Promise<string> {
  try {
    const answer = await client.readContract({ address: payer, abi: ERC1271_ABI, functionName: "isValidSignature", args: [digest, signature] });
    return answer === ERC1271_MAGIC_VALUE ? "accepted it" : `answered ${answer}, not the magic value ${ERC1271_MAGIC_VALUE}`;
  } catch {
    return "reverted (the code has no isValidSignature, or refused)";
  }
}

/**
 * Which check refused a payment's signature, and what the payer can do: the message of an
 * `invalid_exact_evm_signature` (or a refused ERC-6492 factory), in words a payer can act on.
 */
export async function signatureDiagnosis(
  client: PublicClient,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  allowedFactories: readonly Address[],
): Promise<string | undefined> {
  const p = eip3009Of(payload);
  const extra = requirements.extra as { name?: string; version?: string } | undefined;
  if (!p || !extra?.name || !extra.version) return undefined;
  const payer = getAddress(p.authorization.from);
  const wrapped = parseErc6492Signature(p.signature);
  const code = await client.getCode({ address: payer }).catch(() => undefined);
  const deployed = !!code && code !== "0x";
  if (wrapped.address && !deployed) {
    const named = getAddress(wrapped.address);
    const allowed = allowedFactories.map((f) => getAddress(f));
    return allowed.includes(named)
      ? `ERC-6492: deploying the payer ${payer} with factory ${named} did not give an account that accepts the signature; deploy it yourself, then pay with its ERC-1271 signature`
      : `ERC-6492: the payer ${payer} is not deployed and its signature names factory ${named}, which this facilitator does not deploy with (it does with: ${allowed.join(", ") || "none"}); deploy the account first, then pay with its ERC-1271 signature`;
  }
  const { authorization: a } = p;
  const digest = hashTypedData({
    domain: { name: extra.name, version: extra.version, chainId: CHAIN_ID, verifyingContract: getAddress(requirements.asset) },
    types: AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: { ...a, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore) },
  });
  const signature = wrapped.signature;
  const signer = await recovered(digest, signature);
  const own = !!signer && isAddressEqual(signer, payer);
  const ecdsa = own
    ? `ECDSA: the signature is the payer's own (it recovers to ${payer}), yet it was refused`
    : signer
      ? `ECDSA: the signature recovers to ${signer}, not the payer ${payer}`
      : `ECDSA: the signature is not a 65-byte signature of the payer ${payer}`;
  if (!deployed)
    return `${ecdsa}; the payer has no code, so ERC-1271 cannot apply. Sign the TransferWithAuthorization with the payer's own key over USDG's domain (${extra.name}, version ${extra.version}, chain ${CHAIN_ID}, ${getAddress(requirements.asset)}); a smart account not deployed yet wraps its owner's signature in ERC-6492 or is deployed first`;
  const delegate = delegateOf(code);
  const erc1271 = await erc1271Answer(client, payer, digest, signature);
  if (delegate && own)
    return `${ecdsa} (an EIP-7702 account delegated to ${delegate}); ERC-1271: its code ${erc1271}. A checker that asks only ERC-1271 of an account with code needs a delegate whose isValidSignature accepts the account's own key; or pay from a wallet without code`;
  if (delegate)
    return `${ecdsa} (an EIP-7702 account delegated to ${delegate}); ERC-1271: its code ${erc1271}. Sign with the account's own key (the key of ${payer}), over USDG's domain (${extra.name}, version ${extra.version}, chain ${CHAIN_ID})`;
  return `ERC-1271: the payer ${payer} is a contract and its isValidSignature ${erc1271}; ${ecdsa}. Sign as the wallet's ERC-1271 expects for this hash (e.g. its owner's signature of the typed data), over USDG's domain (${extra.name}, version ${extra.version}, chain ${CHAIN_ID})`;
}
