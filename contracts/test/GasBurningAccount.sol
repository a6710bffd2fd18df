// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title GasBurningAccount
/// @notice A hostile ERC-1271 account for tests: its `isValidSignature` accepts the owner's signature
/// in a simulation (an eth_call or a gas estimate, which nodes run with a zero base fee, as EDR and
/// geth do when the call names no gas price) and burns every unit of gas it is given in a mined
/// transaction, so a relayer's simulation and estimate pass and the chain does not.
/// Test networks only.
contract GasBurningAccount is IERC1271 {
    address public immutable OWNER;

    error NotOwner(address caller);
    error CallFailed(bytes returnData);

    constructor(address owner) {
        OWNER = owner;
    }

    function execute(address target, uint256 value, bytes calldata data) external returns (bytes memory) {
        if (msg.sender != OWNER) revert NotOwner(msg.sender);
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        return result;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (block.basefee != 0) {
            uint256 sink;
            // Until the gas given runs out.
            while (true) {
                sink = uint256(keccak256(abi.encode(sink)));
            }
        }
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        if (err == ECDSA.RecoverError.NoError && signer == OWNER) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }
}

/// @title GasProbe
/// @notice Measures the gas a static call uses, from inside the EVM (the call's own cost included), so
/// a test can set an account's validation to just under or just over a gas cap. Test networks only.
contract GasProbe {
    function gasOf(address target, bytes calldata data) external view returns (bool ok, uint256 used) {
        // Warm the target first, so the measured call pays no cold access.
        (bool warm,) = target.staticcall{gas: 0}("");
        warm;
        uint256 before = gasleft();
        (ok,) = target.staticcall(data);
        used = before - gasleft();
    }
}
