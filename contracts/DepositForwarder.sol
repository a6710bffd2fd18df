// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title DepositForwarder
/// @notice The code of a payment address, alive for one instant: the Splitter creates it with
/// CREATE2 at the payment address, its constructor moves the address's whole balance of the token the
/// Splitter names, to the recipient and the fee collector only, with the fee on all of it, and it
/// self-destructs in the same transaction, so the address holds no code afterwards and can be created
/// again for a later deposit.
/// @dev No runtime code and no arguments: the creation code is the same for every payment, so a
/// payment address depends only on the Splitter and the payment's key. Self-destruct in the creating
/// transaction removes the account (EIP-6780); any ETH at the address is burnt with it.
/// It reads `(token | minimum << 160, recipient, feeCollector | feeBps << 160)` from the Splitter's
/// selector-less answer (a call with empty calldata), then `held = token.balanceOf(this)`, refuses
/// `held < minimum` (`DepositBelowAmount`), computes `fee = held * feeBps / 10_000` (rounded down,
/// exact for any balance), sends `token.transfer(recipient, held - fee)` unless nothing is left for
/// the recipient and `token.transfer(feeCollector, fee)` unless the fee is zero, each transfer checked
/// as SafeERC20 checks it (a revert bubbles up with the token's own reason; a `false` or malformed
/// answer is `SafeERC20FailedOperation(token)`). A settlement's `minimum` is the payment's amount: when
/// the address held more, the forwarder emits `PaidInExcess` (the payment address is the log's
/// address). A forward's `minimum` is the balance the Splitter just read, all of what moves, so it
/// emits nothing here: the Splitter's `DepositForwarded` reports it. The calls are assembly: they run
/// on every settlement, and every byte of this creation code is copied and hashed by each CREATE2.
contract DepositForwarder {
    /// @notice Same as ISplitter's: the payment address holds less than the amount.
    error DepositBelowAmount(address depositAddress, uint256 balance, uint256 amount);
    /// @notice A settlement moved more than the payment's amount out of this payment address (the log's
    /// address): `moved`, the address's whole balance, of which `fee` (`moved * feeBps / 10_000`,
    /// rounded down) went to the fee collector and `moved - fee` to the recipient. It comes just before
    /// the settlement's `Paid`, whose `amount` and `fee` stay the payment's own (the fee on `amount`).
    event PaidInExcess(uint256 moved, uint256 fee);

    /// @notice Same as OpenZeppelin's SafeERC20: the token answered a transfer with `false`.
    error SafeERC20FailedOperation(address token);

    // One assembly block on purpose (see inside): split into functions it would cost jumps and
    // creation code on every settlement.
    // solhint-disable-next-line function-max-lines
    constructor() payable {
        bytes32 paidInExcess = PaidInExcess.selector;
        // One block, on scratch memory: every byte of this creation code is copied, hashed and paid for
        // by every settlement (CREATE2), and it never returns to Solidity code (it self-destructs).
        // solhint-disable-next-line no-inline-assembly
        assembly {
            // `token.transfer(to, amount)`, checked as SafeERC20 checks it: a revert bubbles up with the
            // token's own reason; no return data needs code at the address; otherwise exactly `true`.
            function transfer(token, to, amount) {
                mstore(0x00, shl(224, 0xa9059cbb))
                mstore(0x04, to)
                mstore(0x24, amount)
                let ok := call(gas(), token, 0, 0x00, 0x44, 0x00, 0x20)
                if iszero(ok) {
                    returndatacopy(0, 0, returndatasize())
                    revert(0, returndatasize())
                }
                switch returndatasize()
                case 0 { ok := gt(extcodesize(token), 0) }
                default { ok := and(gt(returndatasize(), 31), eq(mload(0), 1)) }
                if iszero(ok) {
                    mstore(0x00, shl(224, 0x5274afe7)) // SafeERC20FailedOperation(address)
                    mstore(0x04, token)
                    revert(0, 0x24)
                }
            }

            // The creator's (the Splitter's) instructions: its selector-less answer to empty calldata,
            // which cannot fail, is three words: `token | minimum << 160`, `recipient` and
            // `feeCollector | feeBps << 160`.
            pop(staticcall(gas(), caller(), 0, 0, 0x00, 0x60))
            let what := mload(0x00)
            let recipient := mload(0x20)
            let fees := mload(0x40)
            let token := and(what, 0xffffffffffffffffffffffffffffffffffffffff)
            let minimum := shr(160, what)

            // token.balanceOf(this); a revert bubbles up.
            mstore(0x00, shl(224, 0x70a08231))
            mstore(0x04, address())
            if iszero(staticcall(gas(), token, 0x00, 0x24, 0x00, 0x20)) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            if lt(returndatasize(), 0x20) { revert(0, 0) }
            let held := mload(0x00)
            if lt(held, minimum) {
                mstore(0x00, shl(224, 0x6fd21571)) // DepositBelowAmount(address,uint256,uint256)
                mstore(0x04, address())
                mstore(0x24, held)
                mstore(0x44, minimum)
                revert(0x00, 0x64)
            }

            // The fee on everything that leaves, not on the amount: an excess is no fee-free payment.
            // floor(held * feeBps / 10_000) computed as q * feeBps + floor(r * feeBps / 10_000) with
            // held = q * 10_000 + r, so no balance overflows it; fee <= held (feeBps <= 10_000).
            let feeBps := shr(160, fees)
            let fee := add(mul(div(held, 10000), feeBps), div(mul(mod(held, 10000), feeBps), 10000))
            if sub(held, fee) { transfer(token, recipient, sub(held, fee)) }
            if fee { transfer(token, and(fees, 0xffffffffffffffffffffffffffffffffffffffff), fee) }
            // A settlement (minimum = the amount) that moved more reports it; a forward (minimum = the
            // balance the Splitter read, all of what moves) never does.
            if gt(held, minimum) {
                mstore(0x00, held)
                mstore(0x20, fee)
                log1(0x00, 0x40, paidInExcess)
            }
            // To itself: the account is removed either way (created in this transaction, EIP-6780); a
            // beneficiary elsewhere would cost a cold account access for ETH nobody should send here.
            selfdestruct(address())
        }
    }
}
