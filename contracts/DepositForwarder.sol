// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IDepositInstructions} from "./interfaces/IDepositInstructions.sol";

/// @title DepositForwarder
/// @notice The code of a payment address, alive for one instant: the Splitter creates it with
/// CREATE2 at the payment address, its constructor moves what the Splitter says (the deposit, to the
/// recipient and the fee collector only), and it self-destructs in the same transaction, so the
/// address holds no code afterwards and can be created again for a later deposit.
/// @dev No runtime code and no arguments: the creation code is the same for every payment, so a
/// payment address depends only on the Splitter and the payment's key. Self-destruct in the creating
/// transaction removes the account (EIP-6780); any ETH at the address goes to the recipient.
contract DepositForwarder {
    using SafeERC20 for IERC20;

    /// @notice Same as ISplitter's: the payment address holds less than the amount.
    error DepositBelowAmount(address depositAddress, uint256 balance, uint256 amount);

    constructor() payable {
        (address token, address recipient, uint256 minimum, uint256 fee, address feeCollector) =
            IDepositInstructions(msg.sender).depositInstructions();
        uint256 balance = IERC20(token).balanceOf(address(this));
        if (balance < minimum) revert DepositBelowAmount(address(this), balance, minimum);
        if (balance != fee) IERC20(token).safeTransfer(recipient, balance - fee);
        if (fee != 0) IERC20(token).safeTransfer(feeCollector, fee);
        // To itself: the account is removed either way (created in this transaction, EIP-6780); a
        // beneficiary elsewhere would cost a cold account access for ETH nobody should send here.
        // solhint-disable-next-line no-inline-assembly
        assembly {
            selfdestruct(address())
        }
    }
}
