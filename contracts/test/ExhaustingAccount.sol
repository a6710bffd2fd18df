// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @title ExhaustingAccount
/// @notice A hostile ERC-1271 account for tests: its `isValidSignature` uses every unit of gas it is
/// given, in one step (the INVALID opcode), whatever it is asked: the cheapest way to trace a check
/// that runs out of whatever gas it gets. Test networks only.
contract ExhaustingAccount is IERC1271 {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            invalid()
        }
    }
}
