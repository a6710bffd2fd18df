// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IDepositInstructions
/// @notice What a payment address's one-shot forwarder asks its creator (the Splitter) while it is
/// being created: which token to move, to whom, the least the address must hold (the payment's
/// amount when settling, 0 when forwarding), and the fee for the fee collector (the rest of the
/// balance goes to the recipient). Set only for the instant of the Splitter's own settle or forward
/// call (transient storage).
interface IDepositInstructions {
    function depositInstructions()
        external
        view
        returns (address token, address recipient, uint256 minimum, uint256 fee, address feeCollector);
}
