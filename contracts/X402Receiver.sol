// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title X402Receiver
/// @notice The code at a merchant's x402 receiver (one per recipient and token, see IX402Receivers):
/// it moves its tokens, of any ERC-20 it holds, only when its creator, the X402Receivers contract,
/// tells it to split them, and the split is fixed here: the fee to the fee collector, the rest to the
/// recipient. It keeps nothing.
/// @dev No constructor arguments, so the creation code (and its hash) is the same for every receiver
/// and an address depends only on the creator and the salt. No selfdestruct: it lives for ever.
/// One selector-less entry, in assembly (it runs on every settlement): called by the creator with
/// three words, `token | feeBps << 160`, `recipient`, `feeCollector`, it reads its balance of
/// `token` (whichever token the creator names), sends `balance - fee` to the recipient (unless zero)
/// and `fee = balance * feeBps / 10_000` (rounded down, exact for any balance) to the fee collector
/// (unless zero), each transfer checked as SafeERC20 checks it, and returns `(balance, fee)`. Any
/// other caller is refused with no data.
contract X402Receiver {
    /// @notice Same as OpenZeppelin's SafeERC20: the token answered a transfer with `false`.
    error SafeERC20FailedOperation(address token);

    address private immutable CREATOR;

    constructor() {
        CREATOR = msg.sender;
    }

    // solhint-disable-next-line no-complex-fallback
    fallback() external {
        address creator = CREATOR;
        // solhint-disable-next-line no-inline-assembly
        assembly {
            function transfer(t, to, amount) {
                mstore(0x00, shl(224, 0xa9059cbb))
                mstore(0x04, to)
                mstore(0x24, amount)
                let ok := call(gas(), t, 0, 0x00, 0x44, 0x00, 0x20)
                if iszero(ok) {
                    returndatacopy(0, 0, returndatasize())
                    revert(0, returndatasize())
                }
                switch returndatasize()
                case 0 { ok := gt(extcodesize(t), 0) }
                default { ok := and(gt(returndatasize(), 31), eq(mload(0), 1)) }
                if iszero(ok) {
                    mstore(0, shl(224, 0x5274afe7)) // SafeERC20FailedOperation(address)
                    mstore(0x04, t)
                    revert(0, 0x24)
                }
            }

            if iszero(eq(caller(), creator)) { revert(0, 0) }
            let what := calldataload(0)
            let token := and(what, 0xffffffffffffffffffffffffffffffffffffffff)
            let feeBps := shr(160, what)
            let recipient := calldataload(0x20)
            let feeCollector := calldataload(0x40)
            // balanceOf(this)
            mstore(0x00, shl(224, 0x70a08231))
            mstore(0x04, address())
            if iszero(staticcall(gas(), token, 0x00, 0x24, 0x00, 0x20)) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            if lt(returndatasize(), 0x20) { revert(0, 0) }
            let held := mload(0x00)
            // floor(held * feeBps / 10_000) as q * feeBps + floor(r * feeBps / 10_000), held = q * 10_000 + r:
            // any token may be split here, and no balance it reports overflows this. fee <= held, as
            // feeBps <= 10_000 (the creator's constructor checks it).
            let fee := add(mul(div(held, 10000), feeBps), div(mul(mod(held, 10000), feeBps), 10000))
            if gt(held, fee) { transfer(token, recipient, sub(held, fee)) }
            if fee { transfer(token, feeCollector, fee) }
            mstore(0x00, held)
            mstore(0x20, fee)
            return(0x00, 0x40)
        }
    }
}
