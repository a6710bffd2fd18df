// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDepositInstructions} from "./interfaces/IDepositInstructions.sol";

/// @title DepositForwarder
/// @notice The code of a payment address, alive for one instant: the Splitter creates it with
/// CREATE2 at the payment address, its constructor moves what the Splitter says (the deposit, to the
/// recipient and the fee collector only), and it self-destructs in the same transaction, so the
/// address holds no code afterwards and can be created again for a later deposit.
/// @dev No runtime code and no arguments: the creation code is the same for every payment, so a
/// payment address depends only on the Splitter and the payment's key. Self-destruct in the creating
/// transaction removes the account (EIP-6780); any ETH at the address is burnt with it.
/// The constructor is assembly: it runs on every settlement, and the ABI decoding and checks of the
/// Solidity form cost about 2,000 gas more. It does exactly what the Solidity form did:
/// `(token, recipient, minimum, fee, feeCollector) = IDepositInstructions(msg.sender).depositInstructions()`,
/// `balance = token.balanceOf(this)`, refuse `balance < minimum`, `token.transfer(recipient, balance - fee)`
/// unless nothing is left for the recipient, `token.transfer(feeCollector, fee)` unless the fee is
/// zero, each transfer checked as SafeERC20 checks it (a revert bubbles up with the token's own
/// reason; a `false` or malformed answer is `SafeERC20FailedOperation(token)`).
contract DepositForwarder {
    /// @notice Same as ISplitter's: the payment address holds less than the amount.
    error DepositBelowAmount(address depositAddress, uint256 balance, uint256 amount);
    /// @notice Same as OpenZeppelin's SafeERC20: the token answered a transfer with `false`.
    error SafeERC20FailedOperation(address token);

    constructor() payable {
        bytes4 instructions = IDepositInstructions.depositInstructions.selector;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            /// A revert with whatever the last call returned (the token's own reason, or ours).
            function bubble() {
                let free := mload(0x40)
                returndatacopy(free, 0, returndatasize())
                revert(free, returndatasize())
            }
            /// `token.transfer(to, amount)`, checked as SafeERC20 checks it.
            function transfer(token, to, amount) {
                let free := mload(0x40)
                mstore(free, shl(224, 0xa9059cbb))
                mstore(add(free, 0x04), to)
                mstore(add(free, 0x24), amount)
                let ok := call(gas(), token, 0, free, 0x44, 0, 0x20)
                if iszero(ok) { bubble() }
                // No return data (a token that returns nothing) needs code at the address; otherwise exactly `true`.
                switch returndatasize()
                case 0 { ok := gt(extcodesize(token), 0) }
                default { ok := and(gt(returndatasize(), 31), eq(mload(0), 1)) }
                if iszero(ok) {
                    mstore(0, shl(224, 0x5274afe7)) // SafeERC20FailedOperation(address)
                    mstore(0x04, token)
                    revert(0, 0x24)
                }
            }

            let free := mload(0x40)
            // The instructions, from the creator (the Splitter, inside its own settle or forward call).
            mstore(free, instructions)
            if iszero(staticcall(gas(), caller(), free, 0x04, free, 0xa0)) { bubble() }
            if lt(returndatasize(), 0xa0) { revert(0, 0) }
            let token := mload(free)
            let recipient := mload(add(free, 0x20))
            let minimum := mload(add(free, 0x40))
            let fee := mload(add(free, 0x60))
            let feeCollector := mload(add(free, 0x80))

            // This address's balance of the token.
            mstore(free, shl(224, 0x70a08231))
            mstore(add(free, 0x04), address())
            if iszero(staticcall(gas(), token, free, 0x24, free, 0x20)) { bubble() }
            if lt(returndatasize(), 0x20) { revert(0, 0) }
            let held := mload(free)
            if lt(held, minimum) {
                mstore(free, shl(224, 0x6fd21571)) // DepositBelowAmount(address,uint256,uint256)
                mstore(add(free, 0x04), address())
                mstore(add(free, 0x24), held)
                mstore(add(free, 0x44), minimum)
                revert(free, 0x64)
            }
            if iszero(eq(held, fee)) { transfer(token, recipient, sub(held, fee)) }
            if fee { transfer(token, feeCollector, fee) }
            // To itself: the account is removed either way (created in this transaction, EIP-6780); a
            // beneficiary elsewhere would cost a cold account access for ETH nobody should send here.
            selfdestruct(address())
        }
    }
}
