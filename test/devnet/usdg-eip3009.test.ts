// The devnet's USDG implements EIP-3009 as USDC does (what x402's `exact` scheme needs): a payment
// authorization signed off chain over USDG's EIP-712 domain moves exactly its value when anyone sends it,
// once; expired, early, forged, replayed, cancelled or misdirected ones revert with USDC's reasons.
import { parseEventLogs, parseSignature, parseUnits, toHex, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { CHAIN_ID } from "../../domain/chain.js";
import { accountAddress, TEST_MNEMONIC } from "../../devnet/chain.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let f: CoreFixture;
let usdg: Address;
const payer = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 2 });
const stranger = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 4 });
const payee = accountAddress(3);
const RELAYER = 1; // sends the signed authorization; pays the gas, moves nothing of its own

const types = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
type Auth = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

let n = 0;
const now = async () => (await f.chain.publicClient.getBlock()).timestamp;
async function authorization(over: Partial<Auth> = {}): Promise<Auth> {
  const t = await now();
  return { from: payer.address, to: payee, value: parseUnits("0.3", 6), validAfter: t - 600n, validBefore: t + 300n, nonce: toHex(++n, { size: 32 }), ...over };
}
const sign = (auth: Auth, signer = payer) =>
  signer.signTypedData({
    domain: { name: "USD Global", version: "2", chainId: CHAIN_ID, verifyingContract: usdg },
    types,
    primaryType: "TransferWithAuthorization",
    message: auth,
  });
const args = (a: Auth) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
const balance = (who: Address) => f.chain.publicClient.readContract({ address: usdg, abi: testTokenAbi, functionName: "balanceOf", args: [who] });

/** Sends transferWithAuthorization (v, r, s form) from `from`; the receipt, or the revert reason. */
async function send(
  auth: Auth,
  signature: Hex,
  from = RELAYER,
  functionName: "transferWithAuthorization" | "receiveWithAuthorization" = "transferWithAuthorization",
) {
  const { v, r, s } = parseSignature(signature);
  try {
    const hash = await f.chain.walletFor(from).writeContract({ address: usdg, abi: testTokenAbi, functionName, args: [...args(auth), Number(v), r, s] });
    return await f.chain.publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    return (error as Error).message;
  }
}

beforeAll(async () => {
  f = await bootCore([]);
  usdg = f.core.usdg;
});

describe("USDG's EIP-3009", () => {
  it("names its EIP-712 domain (ERC-5267) and version as USDC does", async () => {
    const [, name, version, chainId, verifyingContract] = await f.chain.publicClient.readContract({
      address: usdg,
      abi: testTokenAbi,
      functionName: "eip712Domain",
    });
    expect([name, version, Number(chainId), verifyingContract]).toEqual(["USD Global", "2", CHAIN_ID, usdg]);
    expect(await f.chain.publicClient.readContract({ address: usdg, abi: testTokenAbi, functionName: "version" })).toBe("2");
  });

  it("moves exactly the value when anyone sends a signed authorization, once, and marks the nonce used", async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    const [payerBefore, payeeBefore, relayerBefore] = [await balance(payer.address), await balance(payee), await balance(accountAddress(RELAYER))];
    const receipt = await send(auth, signature);
    expect(typeof receipt === "string" ? receipt : receipt.status).toBe("success");
    if (typeof receipt === "string") return;
    expect(parseEventLogs({ abi: testTokenAbi, logs: receipt.logs, eventName: "AuthorizationUsed" }).map((e) => e.args)).toEqual([
      { authorizer: payer.address, nonce: auth.nonce },
    ]);
    expect(await balance(payer.address)).toBe(payerBefore - auth.value);
    expect(await balance(payee)).toBe(payeeBefore + auth.value);
    expect(await balance(accountAddress(RELAYER))).toBe(relayerBefore);
    expect(
      await f.chain.publicClient.readContract({ address: usdg, abi: testTokenAbi, functionName: "authorizationState", args: [payer.address, auth.nonce] }),
    ).toBe(true);
    expect(await send(auth, signature)).toMatch(/EIP3009: authorization is used or canceled/);
  });

  it("takes the signature as bytes too (the form x402 sends for contract wallets)", async () => {
    const auth = await authorization();
    const hash = await f.chain.walletFor(RELAYER).writeContract({
      address: usdg,
      abi: testTokenAbi,
      functionName: "transferWithAuthorization",
      args: [...args(auth), await sign(auth)],
    });
    expect((await f.chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  });

  it("refuses an expired, an early, a forged, an altered and a cancelled authorization", async () => {
    const t = await now();
    const expired = await authorization({ validBefore: t - 1n });
    expect(await send(expired, await sign(expired))).toMatch(/EIP3009: authorization is expired/);
    const early = await authorization({ validAfter: t + 3600n });
    expect(await send(early, await sign(early))).toMatch(/EIP3009: authorization is not yet valid/);
    const forged = await authorization();
    expect(await send(forged, await sign(forged, stranger))).toMatch(/EIP3009: invalid signature/);
    const honest = await authorization();
    expect(await send({ ...honest, value: honest.value * 2n }, await sign(honest))).toMatch(/EIP3009: invalid signature/);
    expect(await send({ ...honest, to: accountAddress(5) }, await sign(honest))).toMatch(/EIP3009: invalid signature/);

    const cancelled = await authorization();
    const cancel = await payer.signTypedData({
      domain: { name: "USD Global", version: "2", chainId: CHAIN_ID, verifyingContract: usdg },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce: cancelled.nonce },
    });
    const { v, r, s } = parseSignature(cancel);
    await f.chain.publicClient.waitForTransactionReceipt({
      hash: await f.chain
        .walletFor(RELAYER)
        .writeContract({ address: usdg, abi: testTokenAbi, functionName: "cancelAuthorization", args: [payer.address, cancelled.nonce, Number(v), r, s] }),
    });
    expect(await send(cancelled, await sign(cancelled))).toMatch(/EIP3009: authorization is used or canceled/);
  });

  it("receiveWithAuthorization: only the payee may send it", async () => {
    const receiveTypes = { ReceiveWithAuthorization: types.TransferWithAuthorization };
    const auth = await authorization();
    const signature = await payer.signTypedData({
      domain: { name: "USD Global", version: "2", chainId: CHAIN_ID, verifyingContract: usdg },
      types: receiveTypes,
      primaryType: "ReceiveWithAuthorization",
      message: auth,
    });
    expect(await send(auth, signature, RELAYER, "receiveWithAuthorization")).toMatch(/EIP3009: caller must be the payee/);
    const receipt = await send(auth, signature, 3, "receiveWithAuthorization");
    expect(typeof receipt === "string" ? receipt : receipt.status).toBe("success");
  });
});
