import { zeroAddress, type Address } from "viem";
import { checksumAddress } from "../chain/keccak.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";

/**
 * The recipient of a payment, a link or a subscription, checksummed; INVALID_REQUEST for an address
 * that could never spend what it receives: the zero address, the deployment's token, or our own
 * Splitter, RecurringCharges or X402Receivers (none can move tokens it holds, so the net amount would be locked
 * for good). One rule for the three creation endpoints; the addresses come from the deployment.
 */
export function checkRecipient(deployment: LiveDeployment, recipient: Address): Address {
  const address = checksumAddress(recipient);
  const lower = address.toLowerCase();
  if (lower === zeroAddress) throw new DomainError("INVALID_REQUEST", { detail: "recipient: the zero address" });
  const refused = [
    deployment.token.address,
    deployment.contracts.Splitter.address,
    deployment.contracts.RecurringCharges.address,
    deployment.contracts.X402Receivers.address,
  ];
  if (refused.some((ours) => ours.toLowerCase() === lower))
    throw new DomainError("INVALID_REQUEST", { detail: "recipient: the token or one of the service's contracts" });
  return address;
}
