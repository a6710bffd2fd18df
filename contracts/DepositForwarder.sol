// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title DepositForwarder
/// @notice The code of a payment address, alive for one instant: the Splitter creates it with
/// CREATE2 at the payment address, its constructor moves what the Splitter says (the deposit, to the
/// recipient and the fee collector only), and it self-destructs in the same transaction, so the
/// address holds no code afterwards and can be created again for a later deposit.
/// @dev No runtime code and no arguments: the creation code is the same for every payment, so a
/// payment address depends only on the Splitter and the payment's key. Self-destruct in the creating
/// transaction removes the account (EIP-6780); any ETH at the address is burnt with it.
/// Its calls are assembly: they run on every settlement, and the ABI decoding and checks of the
/// Solidity form cost about 800 gas more. It does exactly what the Solidity form did:
/// read `(token | minimum << 160, recipient | fee << 160, feeCollector)` from the Splitter's selector-less
/// answer (a call with empty calldata),
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
        (address token, address recipient, uint256 minimum, uint256 fee, address feeCollector) = _instructions();
        uint256 held = _balanceOf(token);
        if (held < minimum) revert DepositBelowAmount(address(this), held, minimum);
        // held >= minimum >= fee (the Splitter's fee is a share of the amount; a forward has none).
        unchecked {
            if (held != fee) _transfer(token, recipient, held - fee);
        }
        if (fee != 0) _transfer(token, feeCollector, fee);
        // To itself: the account is removed either way (created in this transaction, EIP-6780); a
        // beneficiary elsewhere would cost a cold account access for ETH nobody should send here.
        // solhint-disable-next-line no-inline-assembly
        assembly {
            selfdestruct(address())
        }
    }

    /// @dev The creator's (the Splitter's) instructions: a staticcall with empty calldata answers three
    /// words, `token | minimum << 160`, `recipient | fee << 160` and the fee collector.
    function _instructions()
        private
        view
        returns (address token, address recipient, uint256 minimum, uint256 fee, address feeCollector)
    {
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let free := mload(0x40)
            if iszero(staticcall(gas(), caller(), 0, 0, free, 0x60)) {
                returndatacopy(free, 0, returndatasize())
                revert(free, returndatasize())
            }
            if lt(returndatasize(), 0x60) { revert(0, 0) }
            let what := mload(free)
            let where := mload(add(free, 0x20))
            token := and(what, 0xffffffffffffffffffffffffffffffffffffffff)
            minimum := shr(160, what)
            recipient := and(where, 0xffffffffffffffffffffffffffffffffffffffff)
            fee := shr(160, where)
            feeCollector := mload(add(free, 0x40))
        }
    }

    /// @dev `token.balanceOf(address(this))`; a revert bubbles up.
    function _balanceOf(address token) private view returns (uint256 held) {
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let free := mload(0x40)
            mstore(free, shl(224, 0x70a08231))
            mstore(add(free, 0x04), address())
            if iszero(staticcall(gas(), token, free, 0x24, free, 0x20)) {
                returndatacopy(free, 0, returndatasize())
                revert(free, returndatasize())
            }
            if lt(returndatasize(), 0x20) { revert(0, 0) }
            held := mload(free)
        }
    }

    /// @dev `token.transfer(to, amount)`, checked as SafeERC20 checks it: a revert bubbles up with the
    /// token's own reason; no return data needs code at the address; otherwise exactly `true`.
    function _transfer(address token, address to, uint256 amount) private {
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let free := mload(0x40)
            mstore(free, shl(224, 0xa9059cbb))
            mstore(add(free, 0x04), to)
            mstore(add(free, 0x24), amount)
            let ok := call(gas(), token, 0, free, 0x44, 0, 0x20)
            if iszero(ok) {
                returndatacopy(free, 0, returndatasize())
                revert(free, returndatasize())
            }
            switch returndatasize()
            case 0 { ok := gt(extcodesize(token), 0) }
            default { ok := and(gt(returndatasize(), 31), eq(mload(0), 1)) }
            if iszero(ok) {
                mstore(0, shl(224, 0x5274afe7)) // SafeERC20FailedOperation(address)
                mstore(0x04, token)
                revert(0, 0x24)
            }
        }
    }
}
