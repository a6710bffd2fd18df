// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title TestSmartAccount
/// @notice A minimal ERC-1271 contract account for tests: one owner key signs, and the owner can make
/// the account call anything (approve, revoke, refund). Test networks only.
/// @dev `isValidSignature` accepts the owner's plain ECDSA signature over the digest.
/// `expensiveValidation` makes validation burn gas, to test the service's gas cap.
contract TestSmartAccount is IERC1271 {
    address public immutable OWNER;
    uint256 public validationGasBurn;

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

    /// @notice Makes every later `isValidSignature` loop `iterations` times before answering.
    function setValidationGasBurn(uint256 iterations) external {
        if (msg.sender != OWNER) revert NotOwner(msg.sender);
        validationGasBurn = iterations;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        uint256 burn = validationGasBurn;
        uint256 sink;
        for (uint256 i; i < burn; ++i) {
            sink = uint256(keccak256(abi.encode(sink, i)));
        }
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        if (err == ECDSA.RecoverError.NoError && signer == OWNER) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }

    receive() external payable {}
}
