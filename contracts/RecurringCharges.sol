// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IRecurringCharges} from "./interfaces/IRecurringCharges.sol";

/// @title RecurringCharges
/// @notice Lets the service's relayer charge signed subscription terms at most once per period.
/// @dev The owner manages the relayer list and nothing else: it cannot charge, cannot change a
/// subscription's terms or fees, and cannot move tokens. A relayer can only charge what a payer
/// signed, once per period, with a gas reimbursement capped by the signed maximum. Tokens go
/// straight from the payer to the recipient and the fee collector; this contract holds none.
/// Token assumptions: a standard ERC-20 that moves exactly the amount asked (no fee-on-transfer,
/// no rebasing). SafeERC20 covers tokens that return false or nothing.
contract RecurringCharges is IRecurringCharges, EIP712, Ownable2Step {
    using SafeERC20 for IERC20;

    uint16 private constant BPS_DENOMINATOR = 10_000;

    /// @dev keccak256 of the EIP-712 `Terms` type string; field order is the struct's.
    bytes32 public constant TERMS_TYPEHASH = keccak256(
        "Terms(address payer,address recipient,address token,uint256 amount,uint64 period,uint64 start,uint64 end,bytes32 salt,uint16 feeBps,uint256 networkFee,uint256 maxGasReimbursement)"
    );

    /// @dev ERC-6492's magic suffix of a wrapped (counterfactual) signature.
    bytes32 private constant ERC6492_SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;

    /// @inheritdoc IRecurringCharges
    uint256 public constant SIGNATURE_GAS_CAP = 200_000;

    /// @inheritdoc IRecurringCharges
    uint16 public immutable FEE_BPS;
    /// @inheritdoc IRecurringCharges
    uint256 public immutable NETWORK_FEE;
    /// @inheritdoc IRecurringCharges
    address public immutable FEE_COLLECTOR;

    /// @inheritdoc IRecurringCharges
    mapping(bytes32 subscriptionId => SubscriptionState) public subscriptions;
    /// @dev Charge records, six periods per slot: period `p`'s block number (40 bits, enough for any
    /// chain's lifetime) sits at bits `[40 * (p % 6), 40 * (p % 6) + 40)` of `_chargeRecords[id][p / 6]`.
    /// Five later charges in six update a slot that exists instead of creating one (17,100 gas less);
    /// `chargedBlock` reads one period's record, so recovery stays one read plus one log query.
    mapping(bytes32 subscriptionId => mapping(uint256 group => uint256 blockNumbers)) private _chargeRecords;

    uint256 private constant RECORDS_PER_SLOT = 6;
    uint256 private constant RECORD_BITS = 40;
    uint256 private constant RECORD_MASK = (1 << RECORD_BITS) - 1;
    /// @dev Gas a batch keeps back from each item's self-call: an item that runs out of gas is then
    /// skipped (its `ChargeSkipped` recorded, about 7,000 gas) instead of reverting the whole batch and
    /// every item already charged in it. A batch with less left than this stops before its next item.
    uint256 private constant ITEM_GAS_RESERVE = 20_000;
    /// @inheritdoc IRecurringCharges
    mapping(address account => bool) public isRelayer;

    /// @param initialOwner Manages relayers (passed explicitly: a CREATE2 factory deploys this).
    /// @param feeCollector Receives fees, network fees and gas reimbursements.
    /// @param feeBps The fee every subscription signs, in basis points; at most 10_000.
    /// @param networkFee The network fee per charge every subscription signs, in token units.
    /// @param relayers The accounts allowed to charge from the start.
    constructor(
        address initialOwner,
        address feeCollector,
        uint16 feeBps,
        uint256 networkFee,
        address[] memory relayers
    ) EIP712("RecurringCharges", "1") Ownable(initialOwner) {
        if (feeCollector == address(0) || feeBps > BPS_DENOMINATOR) revert InvalidConfiguration();
        FEE_COLLECTOR = feeCollector;
        FEE_BPS = feeBps;
        NETWORK_FEE = networkFee;
        for (uint256 i; i < relayers.length; ++i) {
            _setRelayer(relayers[i], true);
        }
    }

    /// @inheritdoc IRecurringCharges
    function chargedBlock(bytes32 id, uint64 periodIndex) external view returns (uint256) {
        return (_chargeRecords[id][periodIndex / RECORDS_PER_SLOT] >> (RECORD_BITS * (periodIndex % RECORDS_PER_SLOT)))
            & RECORD_MASK;
    }

    /// @inheritdoc IRecurringCharges
    function subscriptionId(Terms calldata terms) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(TERMS_TYPEHASH, terms)));
    }

    /// @inheritdoc IRecurringCharges
    function charge(Terms calldata terms, bytes calldata signature, uint256 gasReimbursement, uint64 expectedPeriod)
        external
        returns (uint64, uint32)
    {
        if (!isRelayer[msg.sender]) revert NotRelayer(msg.sender);
        return _charge(terms, signature, gasReimbursement, expectedPeriod);
    }

    /// @inheritdoc IRecurringCharges
    function chargeBatch(BatchCharge[] calldata charges) external returns (uint256 charged) {
        if (!isRelayer[msg.sender]) revert NotRelayer(msg.sender);
        for (uint256 i; i < charges.length; ++i) {
            uint256 budget = gasleft();
            if (budget <= ITEM_GAS_RESERVE) break;
            // A self-call, so that whatever an item reverts with (ours or the token's, or running out
            // of gas) undoes that item only.
            try this.chargeBatchItem{gas: budget - ITEM_GAS_RESERVE}(charges[i]) {
                ++charged;
            } catch (bytes memory reason) {
                emit ChargeSkipped(i, subscriptionId(charges[i].terms), charges[i].expectedPeriod, reason);
            }
        }
    }

    /// @inheritdoc IRecurringCharges
    function chargeBatchItem(BatchCharge calldata item) external {
        if (msg.sender != address(this)) revert NotRelayer(msg.sender);
        _charge(item.terms, item.signature, item.gasReimbursement, item.expectedPeriod);
    }

    function _charge(Terms calldata terms, bytes calldata signature, uint256 gasReimbursement, uint64 expectedPeriod)
        private
        returns (uint64 periodIndex, uint32 paidCount)
    {
        bytes32 id = subscriptionId(terms);
        SubscriptionState memory state = subscriptions[id];
        if (state.revoked) revert SubscriptionRevoked(id);

        uint64 nowSeconds = uint64(block.timestamp);
        if (terms.period == 0 || terms.recipient == address(0)) revert InvalidTerms();
        if (nowSeconds < terms.start) revert ChargeBeforeStart(nowSeconds, terms.start);
        if (terms.end != 0 && nowSeconds >= terms.end) revert SubscriptionEnded(nowSeconds, terms.end);
        periodIndex = (nowSeconds - terms.start) / terms.period;
        if (periodIndex != expectedPeriod) revert PeriodMismatch(expectedPeriod, periodIndex);
        uint256 group = periodIndex / RECORDS_PER_SLOT;
        uint256 shift = RECORD_BITS * (periodIndex % RECORDS_PER_SLOT);
        uint256 records = _chargeRecords[id][group];
        uint256 previous = (records >> shift) & RECORD_MASK;
        if (previous != 0) revert PeriodAlreadyCharged(id, periodIndex, previous);

        if (gasReimbursement > terms.maxGasReimbursement) {
            revert ReimbursementOverCap(gasReimbursement, terms.maxGasReimbursement);
        }
        if (terms.feeBps != FEE_BPS || terms.networkFee != NETWORK_FEE) {
            revert FeeTermsMismatch(terms.feeBps, terms.networkFee);
        }
        uint256 fee = terms.amount * FEE_BPS / BPS_DENOMINATOR;
        if (terms.amount <= fee + terms.networkFee) revert AmountBelowFees(terms.amount, fee, terms.networkFee);

        if (state.paidCount == 0) _checkSignature(terms.payer, id, signature);

        paidCount = state.paidCount + 1;
        subscriptions[id] = SubscriptionState({lastPeriod: periodIndex, paidCount: paidCount, revoked: false});
        _chargeRecords[id][group] = records | (block.number << shift);
        _pull(terms, id, periodIndex, fee, gasReimbursement);
    }

    /// @dev Emits `Charged` and moves the tokens: `net` to the recipient, the rest of what the payer
    /// pays (fee, network fee, gas reimbursement) to the fee collector.
    function _pull(Terms calldata terms, bytes32 id, uint64 periodIndex, uint256 fee, uint256 gasReimbursement)
        private
    {
        uint256 pulled = terms.amount + gasReimbursement;
        _checkFunds(IERC20(terms.token), terms.payer, pulled);
        uint256 net = terms.amount - fee - terms.networkFee;
        emit Charged(
            id, periodIndex, terms.payer, terms.recipient, terms.token, terms.amount, net, fee, terms.networkFee,
            gasReimbursement
        );
        IERC20(terms.token).safeTransferFrom(terms.payer, terms.recipient, net);
        IERC20(terms.token).safeTransferFrom(terms.payer, FEE_COLLECTOR, pulled - net);
    }

    /// @inheritdoc IRecurringCharges
    function revoke(Terms calldata terms) external {
        if (msg.sender != terms.payer) revert NotPayer(msg.sender, terms.payer);
        bytes32 id = subscriptionId(terms);
        subscriptions[id].revoked = true;
        emit Revoked(id, terms.payer);
    }

    /// @inheritdoc IRecurringCharges
    function setRelayer(address relayer, bool allowed) external onlyOwner {
        _setRelayer(relayer, allowed);
    }

    function _setRelayer(address relayer, bool allowed) private {
        isRelayer[relayer] = allowed;
        emit RelayerSet(relayer, allowed);
    }

    /// @dev ECDSA for accounts without code, ERC-1271 for contract accounts (as OpenZeppelin's
    /// `SignatureChecker`, but the account's `isValidSignature` gets at most `SIGNATURE_GAS_CAP`);
    /// ERC-6492 refused. A check that runs out of the cap, reverts, or answers anything but the magic
    /// value is `InvalidSignature`: a payer cannot spend a batch's gas on its own check.
    function _checkSignature(address payer, bytes32 digest, bytes calldata signature) private view {
        if (signature.length >= 32 && bytes32(signature[signature.length - 32:]) == ERC6492_SUFFIX) {
            revert UnsupportedSignatureFormat();
        }
        if (payer.code.length == 0) {
            (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
            if (err != ECDSA.RecoverError.NoError || recovered != payer) revert InvalidSignature(payer);
            return;
        }
        if (_isValidERC1271SignatureCapped(payer, digest, signature)) return;
        // With less than the cap at hand the call got 63/64 of what was left, not the cap: a failure
        // then may be the caller's short gas, not the payer's verdict, so it is an out of gas (no data).
        if (gasleft() < SIGNATURE_GAS_CAP / 63) {
            // solhint-disable-next-line no-inline-assembly
            assembly ("memory-safe") {
                revert(0, 0)
            }
        }
        revert InvalidSignature(payer);
    }

    /// @dev OpenZeppelin's `SignatureChecker.isValidERC1271SignatureNowCalldata` with the call's gas
    /// capped at `SIGNATURE_GAS_CAP`: one word of the answer is read, whatever the account returns.
    function _isValidERC1271SignatureCapped(address signer, bytes32 hash, bytes calldata signature)
        private
        view
        returns (bool result)
    {
        bytes4 selector = IERC1271.isValidSignature.selector;
        uint256 length = signature.length;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), hash)
            mstore(add(ptr, 0x24), 0x40)
            mstore(add(ptr, 0x44), length)
            calldatacopy(add(ptr, 0x64), signature.offset, length)
            mstore(add(add(ptr, 0x64), length), 0)
            length := shl(5, shr(5, add(length, 0x1F)))
            let success := staticcall(SIGNATURE_GAS_CAP, signer, ptr, add(length, 0x64), 0x00, 0x20)
            result := and(success, and(gt(returndatasize(), 0x1f), eq(mload(0x00), selector)))
        }
    }

    /// @dev Named errors the service maps, whatever the token's own revert format.
    function _checkFunds(IERC20 token, address payer, uint256 required) private view {
        uint256 allowance = token.allowance(payer, address(this));
        if (allowance < required) revert InsufficientAllowance(payer, allowance, required);
        uint256 balance = token.balanceOf(payer);
        if (balance < required) revert InsufficientBalance(payer, balance, required);
    }
}
