// What a payer can do about a refused x402 payment, by the refusal's reason (x402's `exact` EVM reasons and
// this service's own). A refusal names the check that failed; signing the same payment again helps only
// where the reason says so (an expired or used one), never for a signature the payer's wallet cannot make.

const SIGNATURE =
  "The signature is not the payer's (`from`'s). A plain wallet, or one delegated with EIP-7702, signs the TransferWithAuthorization typed data " +
  "with its own key; a contract wallet (an ERC-4337 account, a Safe) must accept the typed data's hash in ERC-1271 isValidSignature, and one " +
  "not deployed yet wraps its signature in ERC-6492 (factory and calldata). A checker that asks only ERC-1271 of an address with code " +
  "(x402's stock facilitator, USDC) refuses an EIP-7702 wallet whose delegate has no isValidSignature: delegate to code that has one, or pay " +
  "from a wallet without code. Signing the same way again fails the same way";

const REMEDIES: Record<string, string> = {
  invalid_exact_evm_signature: SIGNATURE,
  eip6492_factory_not_allowed:
    "The payer is not deployed and its ERC-6492 signature names a factory the facilitator does not deploy with: deploy the account first, then pay with its ERC-1271 signature",
  smart_wallet_deployment_failed: "Deploying the payer from its ERC-6492 signature failed: deploy the account yourself, then pay with its ERC-1271 signature",
  invalid_exact_evm_payload_authorization_value_mismatch: "Sign for exactly `accepts[0].amount`",
  invalid_exact_evm_payload_authorization_valid_before:
    "The authorization has expired or expires within seconds: sign a new one, valid from now for up to `maxTimeoutSeconds`",
  invalid_exact_evm_payload_authorization_valid_after: "`validAfter` is in the future: sign with `validAfter` at or before now",
  invalid_exact_evm_recipient_mismatch: "Pay `accepts[0].payTo`, not another address",
  invalid_exact_evm_nonce_already_used: "This authorization's nonce is used on chain (one payment buys one run): sign a new payment with a fresh nonce",
  payment_already_used: "This payment was already taken (one payment buys one run): sign a new payment with a fresh nonce",
  invalid_exact_evm_insufficient_balance: "The payer holds less USDG than the price: fund it with USDG, then pay",
  invalid_exact_evm_missing_eip712_domain: "Sign over USDG's EIP-712 domain, whose name and version are in `accepts[0].extra`",
  invalid_exact_evm_token_name_mismatch: "Sign over USDG's EIP-712 domain, whose name and version are in `accepts[0].extra`",
  invalid_exact_evm_token_version_mismatch: "Sign over USDG's EIP-712 domain, whose name and version are in `accepts[0].extra`",
  invalid_exact_evm_network_mismatch: "Pay on the network in `accepts[0].network` (eip155:4663)",
  invalid_exact_evm_scheme: "Pay with the `exact` scheme",
  invalid_exact_evm_transaction_simulation_failed:
    "USDG refused the transfer when it was tried (a frozen payer, a paused token, or a wallet whose code refused): check the payer's USDG, then pay anew",
  invalid_exact_evm_transaction_failed:
    "The settlement transaction failed and the result was withheld: check the nonce's `authorizationState` on USDG before paying anew",
  invalid_exact_evm_transfer_event_mismatch: "The settlement moved something else than the payment: nothing was answered; pay anew",
  invalid_payment_header: "The PAYMENT-SIGNATURE header is no x402 v2 payment payload (base64 JSON): make it with an x402 client",
};

/** What the payer can do about a refusal of `reason`. */
export const remedyFor = (reason: string): string => REMEDIES[reason] ?? "Sign a new payment for exactly this amount and payee";
