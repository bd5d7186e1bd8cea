// The calls an owner made to a service contract in one transaction, as the indexer records them for the
// report card: the transaction itself when it was sent to a service contract, else the inner calls of its
// atomic batch (domain/batch-calls.ts). An inner call counts only when paired with the service contract's
// own event in that transaction, so that a batch cannot claim a call it did not make.
import { slice, type Address, type Hex } from "viem";
import { decodeBatchCalls, type BatchVia } from "./batch-calls.js";

export type ExecutedCall = {
  /** The transaction hash for a transaction sent to the service contract; `hash:index` for an inner call. */
  id: string;
  txHash: Hex;
  from: Address;
  to: Address;
  input: Hex;
  selector: Hex;
  via: BatchVia | null;
};

export type ExecutedCallsOfParameters = {
  transaction: { hash: Hex; from: Address; to: Address | null; input: Hex };
  /** The event the indexer is handling: the contract that emitted it and the owners of its changes. */
  event: { address: Address; owners: readonly Address[] };
  isServiceContract: (address: Address) => boolean;
  /**
   * Service contracts whose calls are reported by other contracts' events (routers and zaps: the vault or
   * pool they call emits); a call to any other service contract pairs only with that contract's own event.
   */
  reportedElsewhere: (address: Address) => boolean;
  entryPoints: readonly Address[];
};

const lower = (a: string) => a.toLowerCase() as Address;
const selectorOf = (input: Hex): Hex => (input.length >= 10 ? slice(input, 0, 4) : "0x");

export function executedCallsOf({ transaction: tx, event, isServiceContract, reportedElsewhere, entryPoints }: ExecutedCallsOfParameters): ExecutedCall[] {
  const base = { txHash: tx.hash };
  if (tx.to && isServiceContract(tx.to)) {
    return [{ ...base, id: tx.hash, from: lower(tx.from), to: lower(tx.to), input: lower(tx.input), selector: selectorOf(tx.input), via: null }];
  }
  const owners = new Set(event.owners.map(lower));
  // Only an event with a change of the account (the transaction's `to`) or through an EntryPoint can pair:
  // this spares decoding every keeper transaction's calldata for every event it emits.
  const throughEntryPoint = tx.to !== null && entryPoints.some((e) => lower(e) === lower(tx.to!));
  if (!tx.to || (!throughEntryPoint && !owners.has(lower(tx.to)))) return [];
  return decodeBatchCalls({ to: tx.to, input: tx.input, entryPoints })
    .filter((c) => isServiceContract(c.target) && owners.has(lower(c.sender)) && (lower(c.target) === lower(event.address) || reportedElsewhere(c.target)))
    .map((c) => ({
      ...base,
      id: `${tx.hash}:${c.index}`,
      from: lower(c.sender),
      to: lower(c.target),
      input: lower(c.data),
      selector: selectorOf(c.data),
      via: c.via,
    }));
}
