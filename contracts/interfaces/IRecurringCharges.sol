// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IRecurringCharges
/// @notice Subscriptions: a payer signs EIP-712 `Terms` once; a configured relayer may then charge
/// them at most once per billing period, pulling through the payer's ERC-20 allowance.
/// @dev Period `i` covers unix seconds `[start + i * period, start + (i + 1) * period)`. A charge
/// at time `t` is for period `floor((t - start) / period)`. Charges are allowed for
/// `start <= t` and, when `end != 0`, `t < end`. Skipped periods stay unpaid; only the current
/// period can ever be charged.
interface IRecurringCharges {
    /// @notice What the payer signs. `subscriptionId` is its EIP-712 digest.
    struct Terms {
        /// @dev The account that pays and signs (an EOA, or an ERC-1271 contract account).
        address payer;
        /// @dev The merchant account that receives `amount - fee - networkFee` per period.
        address recipient;
        /// @dev The ERC-20 token charged.
        address token;
        /// @dev The commercial amount per period, in token units.
        uint256 amount;
        /// @dev The billing period length, in seconds; > 0.
        uint64 period;
        /// @dev Unix seconds, inclusive: period 0 starts here.
        uint64 start;
        /// @dev Unix seconds, exclusive: no charge at or after it; 0 means no end.
        uint64 end;
        /// @dev Service-made randomness, so two equal subscriptions have distinct ids.
        bytes32 salt;
        /// @dev The service fee in basis points of `amount`; must equal `FEE_BPS`.
        uint16 feeBps;
        /// @dev The fixed network fee per charge, in token units, taken from the recipient's share;
        /// must equal `NETWORK_FEE`.
        uint256 networkFee;
        /// @dev The most a charge may add on top of `amount` to reimburse gas, in token units.
        uint256 maxGasReimbursement;
    }

    /// @notice What the contract records per subscription. Fits one storage slot.
    struct SubscriptionState {
        /// @dev The index of the last period charged; meaningful only when `paidCount > 0`.
        uint64 lastPeriod;
        /// @dev How many periods were charged. 0 means the signature was never checked on chain.
        uint32 paidCount;
        /// @dev True once the payer revoked; final.
        bool revoked;
    }

    /// @notice One charge of a batch: the arguments `charge` takes.
    struct BatchCharge {
        Terms terms;
        /// @dev Checked only on a subscription's first charge; empty for renewals.
        bytes signature;
        uint256 gasReimbursement;
        uint64 expectedPeriod;
    }

    /// @notice A period was charged. The payer paid `amount + gasReimbursement`; the recipient
    /// received `net = amount - fee - networkFee`; the fee collector `fee + networkFee + gasReimbursement`.
    /// All amounts in token units.
    event Charged(
        bytes32 indexed subscriptionId,
        uint64 indexed periodIndex,
        address indexed payer,
        address recipient,
        address token,
        uint256 amount,
        uint256 net,
        uint256 fee,
        uint256 networkFee,
        uint256 gasReimbursement
    );

    /// @notice Item `index` of a `chargeBatch` charged nothing; `reason` is the revert data `charge`
    /// would have reverted with (one of this contract's errors, or the token's own). The other items
    /// are unaffected.
    event ChargeSkipped(uint256 indexed index, bytes32 indexed subscriptionId, uint64 expectedPeriod, bytes reason);

    /// @notice The payer revoked the subscription; no charge will succeed again.
    event Revoked(bytes32 indexed subscriptionId, address indexed payer);

    /// @notice The owner allowed or disallowed a relayer.
    event RelayerSet(address indexed relayer, bool allowed);

    /// @notice The caller is not a configured relayer.
    error NotRelayer(address caller);
    /// @notice The caller of `revoke` is not the payer of the terms.
    error NotPayer(address caller, address payer);
    /// @notice The charge comes before the subscription's start (not due yet).
    error ChargeBeforeStart(uint64 timestamp, uint64 start);
    /// @notice The charge comes at or after the subscription's end.
    error SubscriptionEnded(uint64 timestamp, uint64 end);
    /// @notice The payer revoked this subscription.
    error SubscriptionRevoked(bytes32 subscriptionId);
    /// @notice The charge was meant for period `expected`, but its block is in period `actual` (sent
    /// in the last seconds of a period and mined in the next, say): nothing is charged, so a renewal
    /// job never books one period's payment as another's.
    error PeriodMismatch(uint64 expected, uint64 actual);
    /// @notice This period was charged already, in block `chargedBlock`.
    error PeriodAlreadyCharged(bytes32 subscriptionId, uint64 periodIndex, uint256 chargedBlock);
    /// @notice The signature does not validate for the payer (ECDSA, or ERC-1271: the account's
    /// `isValidSignature` reverted, answered anything but its magic value, or ran out of `SIGNATURE_GAS_CAP`).
    error InvalidSignature(address payer);
    /// @notice ERC-6492 wrapped signatures are refused: the account must be deployed first.
    error UnsupportedSignatureFormat();
    /// @notice The requested gas reimbursement is above the signed maximum.
    error ReimbursementOverCap(uint256 requested, uint256 maximum);
    /// @notice The signed fee terms differ from this deployment's.
    error FeeTermsMismatch(uint16 feeBps, uint256 networkFee);
    /// @notice The amount does not cover the fee and the network fee with at least one unit left.
    error AmountBelowFees(uint256 amount, uint256 fee, uint256 networkFee);
    /// @notice Terms with a zero period or a zero recipient.
    error InvalidTerms();
    /// @notice The payer's allowance to this contract is below what the charge pulls.
    error InsufficientAllowance(address payer, uint256 allowance, uint256 required);
    /// @notice The payer's balance is below what the charge pulls.
    error InsufficientBalance(address payer, uint256 balance, uint256 required);
    /// @notice Constructor arguments out of range.
    error InvalidConfiguration();

    /// @notice The most gas a contract payer's ERC-1271 `isValidSignature` gets, on a first charge
    /// (alone or in a batch): a check that needs more is `InvalidSignature`. 200,000, the service's
    /// default `SIGNATURE_GAS_CAP`, under which it asks the same question before it sends a charge.
    function SIGNATURE_GAS_CAP() external view returns (uint256);

    /// @notice The fee in basis points every subscription must sign; fixed at deployment.
    function FEE_BPS() external view returns (uint16);
    /// @notice The network fee per charge every subscription must sign, in token units; fixed at deployment.
    function NETWORK_FEE() external view returns (uint256);
    /// @notice The account that receives fees, network fees and gas reimbursements; fixed at deployment.
    function FEE_COLLECTOR() external view returns (address);

    /// @notice The subscription id: the EIP-712 digest of `terms` under this contract's domain.
    function subscriptionId(Terms calldata terms) external view returns (bytes32);

    /// @notice The recorded state of a subscription.
    function subscriptions(bytes32 subscriptionId)
        external
        view
        returns (uint64 lastPeriod, uint32 paidCount, bool revoked);

    /// @notice The block in which `periodIndex` of `subscriptionId` was charged, or 0.
    /// @dev Records are packed six periods to a storage slot; this reads one period's. Recovery reads
    /// it, then queries the `Charged` log of that one block.
    function chargedBlock(bytes32 subscriptionId, uint64 periodIndex) external view returns (uint256);

    /// @notice Whether `account` may call `charge`.
    function isRelayer(address account) external view returns (bool);

    /// @notice Charges period `expectedPeriod`, which must be the period of the block the charge is
    /// mined in (`PeriodMismatch` otherwise). The first charge of a subscription checks `signature`;
    /// later ones ignore it.
    /// @param gasReimbursement Token units added on top of `amount` for the relayer's gas, at most
    /// `terms.maxGasReimbursement`.
    /// @param expectedPeriod The period the relayer means to charge: the period named is the period charged.
    /// @return periodIndex The period charged (`expectedPeriod`).
    /// @return paidCount The subscription's charges so far, this one included: 1 for a first charge
    /// (whose signature was checked). A relayer's simulation learns from it, in the same call, whether
    /// the charge is a renewal (whose gas is known) or a first charge (whose gas must be estimated).
    function charge(Terms calldata terms, bytes calldata signature, uint256 gasReimbursement, uint64 expectedPeriod)
        external
        returns (uint64 periodIndex, uint32 paidCount);

    /// @notice Charges each item as `charge` would, each on its own: an item that would revert (a payer
    /// short of funds, a revoked subscription, a token refusal, a period already charged) charges
    /// nothing and emits `ChargeSkipped` (an item that runs out of gas too, with an empty reason); the
    /// others go through. A batch left with too little gas to try its next item and record a skip stops
    /// there: the items after it charge nothing and emit nothing. Only a relayer may call it.
    /// @return charged How many items were charged (each also emits `Charged`).
    function chargeBatch(BatchCharge[] calldata charges) external returns (uint256 charged);

    /// @notice One batch item, called by this contract only (so that a revert stays inside the item).
    function chargeBatchItem(BatchCharge calldata item) external;

    /// @notice Revokes the subscription; only the payer may call it. Works before the first charge too.
    function revoke(Terms calldata terms) external;

    /// @notice Allows or disallows a relayer. Only the owner; the owner can never move tokens.
    function setRelayer(address relayer, bool allowed) external;
}
