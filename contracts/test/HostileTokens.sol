// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A token whose `transfer`/`transferFrom` return false instead of reverting. Tests only.
contract FalseReturningToken is ERC20 {
    bool public failTransfers;

    constructor() ERC20("False", "FALSE") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setFailTransfers(bool fail) external {
        failTransfers = fail;
    }

    function transfer(address to, uint256 value) public override returns (bool) {
        if (failTransfers) return false;
        return super.transfer(to, value);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (failTransfers) return false;
        return super.transferFrom(from, to, value);
    }
}

/// @notice A USDT-style token whose `transfer`/`transferFrom` return nothing. Tests only.
contract NoReturnToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    error Insufficient();

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function approve(address spender, uint256 amount) external {
        allowance[msg.sender][spender] = amount;
    }

    function transfer(address to, uint256 amount) external {
        _move(msg.sender, to, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        if (allowance[from][msg.sender] < amount) revert Insufficient();
        allowance[from][msg.sender] -= amount;
        _move(from, to, amount);
    }

    function _move(address from, address to, uint256 amount) private {
        if (balanceOf[from] < amount) revert Insufficient();
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
    }
}

/// @notice A token that calls back into a target during `transferFrom` (once), to test reentrancy.
/// Tests only.
contract ReentrantToken is ERC20 {
    address public target;
    bytes public callData;
    bool public reentered;
    bool public reentrySucceeded;

    constructor() ERC20("Reentrant", "REENTER") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Arms the token: the next `transferFrom` calls `target` with `data` first.
    function arm(address target_, bytes calldata data) external {
        target = target_;
        callData = data;
        reentered = false;
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (target != address(0) && !reentered) {
            reentered = true;
            (bool ok,) = target.call(callData);
            reentrySucceeded = ok;
        }
        return super.transferFrom(from, to, value);
    }
}

/// @notice A token whose `balanceOf` reverts with a reason of its own (`silent` false) or answers
/// nothing at all (`silent` true), and whose `transfer` takes anything: a forwarder that read past a
/// broken balance would pay out of it. Tests only.
contract BrokenBalanceToken {
    bool public silent;

    error BalanceUnavailable(address account);

    function setSilent(bool value) external {
        silent = value;
    }

    function transfer(address, uint256) external pure returns (bool) {
        return true;
    }

    function balanceOf(address account) external view returns (uint256) {
        if (!silent) revert BalanceUnavailable(account);
        // solhint-disable-next-line no-inline-assembly
        assembly {
            return(0, 0)
        }
    }
}
