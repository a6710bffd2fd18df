/**
 * What the OpenAPI document says about each endpoint beyond its schemas and error codes (which the
 * routes declare): the operation id (the typed client's method name), a tag, and a description that
 * carries the spec's safety rules. A route without an entry here fails the OpenAPI test.
 */
export interface OperationDoc {
  operationId: string;
  tag: "Service" | "Payments" | "Links" | "Subscriptions" | "Charges" | "Refunds" | "Holds" | "Events" | "x402";
  description: string;
}

const VERIFY_RULE =
  "Fulfil only on valid: true, with a reference equal to the one you stored, once per reference and transaction; never on a browser message, a transaction hash alone or a webhook.";
const WAIT_RULE =
  "WAIT (PAYMENT_CONFIRMING, REFUND_CONFIRMING, status CONFIRMING) means the transaction exists and the money may have moved: poll the same hash and start no other.";
const RETRY_RULE = "Errors are { error, action?, retry_after? }: branch on error and action; RETRY errors carry Retry-After, honour it.";

const X402_RULE =
  "x402's shapes (camelCase, unknown fields kept); a refusal is 200 with x402's reason, a body that is not an x402 request 400 with invalid_payload.";

/**
 * When each capability stops working, and where: the one rule per capability, stated once in the
 * document's description (each operation that takes a capability past its expiry says so too).
 */
export const CAPABILITY_EXPIRY =
  "Capabilities and when they expire (the lifetimes, in seconds, are GET /v1/capabilities' token_lifetimes): " +
  "an intent's expires_at is enforced only by POST /v1/payments/resolve (INTENT_EXPIRED): verify, recover, POST /v1/events and refunds/prepare take it for good, as a payment may settle late. " +
  "A link token mints payments or terms until the link's expires_at or its close (LINK_CLOSED); its manage_token never expires: it lists, closes and reads events after that, and its view_token (read-only: subscribers' states, never a capability) never expires either. " +
  "A setup token's expires_at is enforced only by POST /v1/subscriptions/resolve (SETUP_TOKEN_EXPIRED): POST /v1/subscriptions/finalize and POST /v1/links/subscribe take a setup past it, because the payer's signature on the terms it shows is the consent (subscribe still needs the link open). " +
  "A subscription capability never expires: its terms' end ends the charges (SUBSCRIPTION_EXPIRED). " +
  "A cancel token past its expires_at is CANCEL_TOKEN_EXPIRED wherever it is taken (revoke/prepare, subscriptions/state); an approve token is APPROVE_TOKEN_EXPIRED at approve/resolve; a refund token is REFUND_TOKEN_EXPIRED at refunds/resolve (refunds/verify takes the intent or the subscription, not the refund token).";

export const OPERATIONS: Record<string, OperationDoc> = {
  "GET /x402/supported": {
    operationId: "x402Supported",
    tag: "x402",
    description:
      "x402's GET /supported: scheme exact on this chain (eip155:<chain id>), x402 version 2, no extensions, and the relayer that submits settlements as signer.",
  },
  "POST /x402/verify": {
    operationId: "x402Verify",
    tag: "x402",
    description: `x402's POST /verify: whether settling this payment now would pay its payTo: a merchant's receiver this service knows (POST /v1/x402/receivers), or a payment address this service issued, for that amount, not settled yet, checked by @x402/evm's own exact verify (signature incl. ERC-1271, time window, amount, simulation). A replayed authorization is invalid_exact_evm_nonce_already_used. invalidMessage names the rule that refused in this service's words (a replay: the nonce is used; an expired authorization: its validBefore is past; a payload that is not EIP-3009: what it is instead), never a library's text. ${X402_RULE}`,
  },
  "POST /x402/settle": {
    operationId: "x402Settle",
    tag: "x402",
    description: `x402's POST /settle: submits the buyer's authorization and the fee split in one transaction (X402Receivers.settle to a receiver, Splitter.settleDepositFromAuthorization to a payment address) and answers once it is mined: success names the transaction that settled the payment (to a receiver: the one that moved the agent's funds into it, which was split), also when a front-runner submitted the same authorization first; one success per payment (the same header twice gets one), only with proof that this authorization paid it, and never for a settlement over the gas ceiling. Inclusion, not finality: POST /v1/x402/verify-settlement (to a receiver) or POST /v1/payments/verify (to a payment address) gives the final verdict. ${X402_RULE}`,
  },
  "GET /health": {
    operationId: "health",
    tag: "Service",
    description: "Liveness only: answers while the process runs, never rate limited. Readiness (chain and store) is /ready on the operational port.",
  },
  "POST /v1/capabilities": {
    operationId: "capabilities",
    tag: "Service",
    description: `What a client needs to know about this deployment: environment, chain, contracts, token, fee, bounds, finality rule, token lifetimes and the checkout URL. Check chain_id and environment before you act: test and production are separate stacks. ${RETRY_RULE}`,
  },
  "GET /v1/webhooks/keys": {
    operationId: "webhookKeys",
    tag: "Events",
    description:
      "The ed25519 public keys webhook deliveries are signed with (Standard Webhooks' v1a scheme: webhook-signature is v1a,<base64 signature> over webhook-id.webhook-timestamp.body). No secret: anyone may read them. During a rotation's overlap both the old and the new key are listed; cache them for at most a few minutes.",
  },
  "POST /v1/holds": {
    operationId: "createHold",
    tag: "Holds",
    description:
      "Creates a hold: recipient, amount (the most that may be captured), capture_before and refund_before (unix seconds; capture_before at least 300 s and at most 30 days from now, refund_before from capture_before to a year from now). The buyer authorizes before authorize_before (a day from now, never past capture_before). Answers two capabilities: hold (ho, yours: capture, void, refund, state, events; keep it server-side) and checkout_token (hc, the buyer's, in checkout_url: resolve, authorize, state, reclaim; never capture or void). Nothing is stored but a watch for notify_url.",
  },
  "POST /v1/holds/resolve": {
    operationId: "resolveHold",
    tag: "Holds",
    description:
      "What payer signs to authorize the hold: USDC's ERC-3009 ReceiveWithAuthorization of amount to the escrow's collector, valid before authorize_before, its nonce the hold_id (the payer-agnostic PaymentInfo hash); typed_data is handed to eth_signTypedData_v4 as it is. Reads the token only.",
  },
  "POST /v1/holds/authorize": {
    operationId: "authorizeHold",
    tag: "Holds",
    description:
      "Takes the buyer's signature and sends the escrow's authorize as its operator (simulated first: a refusal sends nothing). SENT with the transaction; hold.authorized and POST /v1/holds/state say when it is final. A replay is HOLD_ALREADY_AUTHORIZED (HOLD_BUSY while the first is in flight). Limited per IP.",
  },
  "POST /v1/holds/capture": {
    operationId: "captureHold",
    tag: "Holds",
    description:
      "Captures amount of what is still authorized, before capture_before: the deployment's fee_bps of it to the fee collector, the rest to the recipient. Partial and repeated; one operator call per hold at a time (HOLD_BUSY). Ship on hold.captured or a final step in POST /v1/holds/state, never on SENT.",
  },
  "POST /v1/holds/void": {
    operationId: "voidHold",
    tag: "Holds",
    description: "Sends everything still authorized back to the buyer (any time). What was captured stays captured.",
  },
  "POST /v1/holds/refund": {
    operationId: "refundHold",
    tag: "Holds",
    description:
      "A refund of what was captured is the existing refund, sent from your wallet (the service holds no funds and uses no operator refund collector): without refund_tx_hash it is prepared (the token transfer to the buyer, and a refund_token for the checkout's #/refund page), before refund_before, at most what was captured; with refund_tx_hash it is verified on chain (REFUNDED, final) and announced as hold.refunded.",
  },
  "POST /v1/holds/state": {
    operationId: "holdState",
    tag: "Holds",
    description:
      "The hold as the chain holds it, with either capability: its state and amounts from its final steps (each through a majority of the nodes), the steps still confirming, the operator call in flight, and, once EXPIRED with funds left, reclaim: the buyer's own transaction to the escrow.",
  },
  "POST /v1/holds/list": {
    operationId: "listHolds",
    tag: "Holds",
    description:
      "Extension. A recipient's holds made through this service (the escrow's authorizations of the last 31 days naming this operator and that receiver), newest first, with their states: for the checkout's #/merchant page, without accounts. A listing, not a verdict. Public and limited per IP.",
  },
  "POST /v1/events": {
    operationId: "listEvents",
    tag: "Events",
    description:
      "Reads back the webhook events of a capability you hold (a payment's intent, a link's manage_token, a subscription capability, a hold's ho capability), delivered or not, oldest first, 100 a page, kept WEBHOOK_RETENTION_SECONDS (30 days by default): each with the exact body delivered and headers signed now, verified like a delivery. Pass next as after for what came since. Same ids as the deliveries, so fulfil once per id. A hint like any event: verify decides. Limited per IP like recover: for catching up after an outage, not for polling.",
  },
  "GET /v1/capabilities": { operationId: "capabilitiesGet", tag: "Service", description: "The same answer as POST /v1/capabilities, for tools that only GET." },
  "POST /v1/payments": {
    operationId: "createPayment",
    tag: "Payments",
    description: `Creates a payment intent. The service makes the reference: store intent and reference with your order; the intent is the capability to verify it. notify_url asks for a webhook (public https, DNS name, default port, at most 512 characters); when it is not echoed back the watch caps were reached: poll instead. ${RETRY_RULE}`,
  },
  "POST /v1/payments/resolve": {
    operationId: "resolvePayment",
    tag: "Payments",
    description:
      "What a checkout calls: the payment terms of an intent, or of a link token (then with a fresh intent). The only call that enforces expires_at; 409 PAYMENT_ALREADY_PROCESSED (action SUCCESS) once the intent's payment settled at or below the finality head, 409 PAYMENT_CONFIRMING (action WAIT, Retry-After) while it is mined above it: do not pay again.",
  },
  "POST /v1/payments/verify": {
    operationId: "verifyPayment",
    tag: "Payments",
    description: `Checks a transaction against the intent, at the finality head. Answers 200 with valid: false and a code when it does not settle the intent. ${VERIFY_RULE} PAYMENT_CONFIRMING means WAIT: ask again about the same hash; start no other payment. Any RPC failure is an error (RETRY), never a verdict.`,
  },
  "POST /v1/payments/recover": {
    operationId: "recoverPayment",
    tag: "Payments",
    description: `Finds the intent's payment on chain without a transaction hash (after a lost response or a missed webhook). Limited per IP and per intent: not for polling; poll /v1/payments/verify with the hash it returns. ${VERIFY_RULE}`,
  },
  "POST /v1/payments/list": {
    operationId: "listPayments",
    tag: "Payments",
    description:
      "Extension. The payments to a recipient, read from the chain alone (the Splitter's Paid and the x402 receivers' events, in the deployment's token), newest first: for a merchant without a server (the checkout's #/merchant page, a CSV for the books). Each page reads a bounded block range backwards from before_block (a provider's log-range cap is read in halves and the page ends where it stopped): pass next_before_block as before_block until it is null; a page can be empty and still have a next one. final says whether the block is at or below the finality head; a payment that leaves the chain in a reorg is not listed. A listing is not a verdict: fulfil on POST /v1/payments/verify. Public and limited per IP like recover.",
  },
  "POST /v1/links": {
    operationId: "createLink",
    tag: "Links",
    description:
      "Creates a payment link: a browser-safe token that mints a fresh payment each time the checkout opens it. Every payment through it has a reference starting with link_id: fulfil on valid: true with a reference that starts with your link_id. Keep manage_token server-side; it closes the link and lists (with their capabilities) and removes a subscription link's subscribers. view_token (`lv.`) is read-only: it lists a subscription link's subscribers' states and payments and never a capability; hand it, never manage_token, to the merchant page. With period (and end, as POST /v1/subscriptions takes them, with the same amount floor) it is a subscription link: url opens the checkout's #/subscribe page, each visitor signs fresh terms, and the answer repeats period and end.",
  },
  "POST /v1/links/subscribe": {
    operationId: "subscribeLink",
    tag: "Links",
    description:
      "Browser-safe: takes the payer's signature on a setup a subscription link minted (setup_token from POST /v1/subscriptions/resolve with the link token), checks it as finalize does, and keeps the subscription capability against the link (sealed at rest); answers no capability. The subscriber costs the merchant nothing until it pays: the service makes its first charge at once (as POST /v1/charges does), and it is PENDING (not listed, not watched, not announced) until that charge is settled, then ACTIVE. Post the same body again while PENDING: it asks after the charge. A refused first charge drops the subscriber (the refusal is answered), and so do 600 s without a settled one, or the link's close. A payer holds one pending subscription per link, and a link 10 pending subscribers at once: CONCURRENCY_LIMIT past either. A setup past its expires_at is still taken, as finalize takes it: the payer's signature is the consent (the link's own expiry is enforced). LINK_CLOSED once the link is closed or expired; a setup not minted by a link is INVALID_SETUP_TOKEN.",
  },
  "POST /v1/links/subscriptions": {
    operationId: "linkSubscriptions",
    tag: "Links",
    description:
      "Merchant server only: the subscription link's active subscribers (first charge settled), oldest first, 100 per page (pass next as after), each with the subscription capability your server charges with (POST /v1/charges). The first page asks after the link's pending subscribers first (at most 10 charges followed). Closing the link does not end the active ones. A view token or a payment link's manage token is WRONG_LINK_TOKEN.",
  },
  "POST /v1/links/subscribers/remove": {
    operationId: "removeLinkSubscriber",
    tag: "Links",
    description:
      "Merchant: removes a subscriber of the subscription link, pending or active, with the manage token: it is no longer listed, and its webhook watch ends (its place under the watch caps is free at once). The subscription itself stays the payer's: stop charging it. removed is false when the link had no such subscriber.",
  },
  "POST /v1/links/view-token": {
    operationId: "linkViewToken",
    tag: "Links",
    description:
      "The link's read-only view token (`lv.`), from its manage token: what the merchant page asks for. It lists the subscribers' states and payments (POST /v1/links/subscribers) and nothing else: never a capability, never a charge, close or removal.",
  },
  "POST /v1/links/subscribers": {
    operationId: "linkSubscriberStates",
    tag: "Links",
    description:
      "Extension, browser-safe, by the link's view_token: a subscription link's active subscribers as POST /v1/links/subscriptions lists them (oldest first, 100 a page, pass next as after), each with its state on chain, charges paid and last charged period, and never its subscription capability: what the checkout's merchant page shows once the merchant pastes the view token (the page takes it out of its URL and history once read, and keeps it in sessionStorage). A page's states are read once per block whatever the callers (one head read shared by the calls waiting on it, then one eth_call per subscriber), behind a gate like recover's (RPC_BUSY past its queue). A manage token is WRONG_LINK_TOKEN here.",
  },
  "POST /v1/links/close": {
    operationId: "closeLink",
    tag: "Links",
    description:
      "Closes a link and its webhook watch: the checkout stops minting payments for it (LINK_CLOSED), and a subscription link's pending subscribers are dropped. Payments already made and active subscribers stay valid.",
  },
  "POST /v1/subscriptions": {
    operationId: "createSubscription",
    tag: "Subscriptions",
    description:
      "Creates subscription terms and a setup token for the payer's wallet (the checkout's #/subscribe route). period is in seconds, at least the capabilities' min_period. Nothing is on chain until the payer signs and you finalize.",
  },
  "POST /v1/subscriptions/resolve": {
    operationId: "resolveSubscription",
    tag: "Subscriptions",
    description:
      "The terms of a setup token and the exact EIP-712 typed data the payer signs (every field but payer). A wallet shows these terms, never others. Given a subscription link's token (in setup_token), it mints fresh terms for this visitor and answers them with that setup_token and link_id (LINK_CLOSED once the link is closed or expired); a payment link's token is INVALID_SETUP_TOKEN. The only call that enforces a setup token's expires_at (SETUP_TOKEN_EXPIRED).",
  },
  "POST /v1/subscriptions/finalize": {
    operationId: "finalizeSubscription",
    tag: "Subscriptions",
    description:
      "Merchant server only: checks the payer's signature (ECDSA, or ERC-1271 for a contract wallet; ERC-6492 is refused) and returns the subscription capability. Keep subscription server-side, encrypted: it is what charges. A setup minted by a subscription link is INVALID_SETUP_TOKEN here: POST /v1/links/subscribe takes it. A setup past its expires_at is still taken: the payer's signature is the consent, and a server may finalize a little after the checkout closed.",
  },
  "POST /v1/subscriptions/state": {
    operationId: "subscriptionState",
    tag: "Subscriptions",
    description:
      "The subscription's state read from the chain (PENDING, ACTIVE, REVOKED, ENDED), lastPeriod and paid_count. Grant or remove access from this, never from a count of events.",
  },
  "POST /v1/charges": {
    operationId: "charge",
    tag: "Charges",
    description: `Charges the current period through the relayer; safe to repeat: the contract allows one charge per period and the same call returns the same transaction. status CONFIRMING (action WAIT): the charge is on chain, not settled; call again, never charge another way and never re-charge. CHARGED, then ALREADY_CHARGED for the rest of the period. ASK_PAYER codes sent nothing: mint an approve session. STOP codes: end access. ${RETRY_RULE}`,
  },
  "POST /v1/charges/recover": {
    operationId: "recoverCharge",
    tag: "Charges",
    description: "Finds one period's charge on chain after a lost response. PAYMENT_CONFIRMING means WAIT: ask again; do not charge again.",
  },
  "POST /v1/subscriptions/approve/session": {
    operationId: "approveSession",
    tag: "Subscriptions",
    description: "Mints a browser-safe approve token for the checkout's #/approve route, after INSUFFICIENT_ALLOWANCE or INSUFFICIENT_BALANCE (ASK_PAYER).",
  },
  "POST /v1/subscriptions/approve/resolve": {
    operationId: "approveResolve",
    tag: "Subscriptions",
    description: "What the approve page needs: token, spender and the allowance the next charge requires.",
  },
  "POST /v1/subscriptions/revoke/session": {
    operationId: "revokeSession",
    tag: "Subscriptions",
    description: "Mints a browser-safe cancel token for the checkout's #/cancel route; the subscription capability never reaches a browser.",
  },
  "POST /v1/subscriptions/revoke/prepare": {
    operationId: "revokePrepare",
    tag: "Subscriptions",
    description: "Unsigned revoke calldata that only the payer can send. Cancellation is final once settled; read the state afterwards.",
  },
  "POST /v1/allowances/revoke/prepare": {
    operationId: "allowanceRevokePrepare",
    tag: "Subscriptions",
    description: "Unsigned approve(RecurringCharges, 0) calldata: a payer's way to stop every subscription at once.",
  },
  "POST /v1/refunds/prepare": {
    operationId: "prepareRefund",
    tag: "Refunds",
    description:
      "Prepares a refund of a settled payment or charge: token, merchant, payer and ceiling come from the chain, locked in a refund token. Extension: with neither intent nor subscription, reference (as POST /v1/payments/list shows it) names the payment by its event in tx_hash; that is how the checkout's merchant page refunds a link's payment. The service keeps no refund history: preparing twice gives two valid refunds, so enforce one refund per payment yourself before calling this.",
  },
  "POST /v1/refunds/resolve": {
    operationId: "resolveRefund",
    tag: "Refunds",
    description: "Reads a refund token (no chain read): what the merchant's wallet sends, to whom.",
  },
  "POST /v1/refunds/verify": {
    operationId: "verifyRefund",
    tag: "Refunds",
    description: `Verifies a refund transfer by its Transfer event from merchant to payer. ${WAIT_RULE}`,
  },
  "POST /v1/x402/receivers": {
    operationId: "x402Receiver",
    tag: "x402",
    description:
      "The merchant's x402 receiver for a recipient: one address per recipient on this deployment's chain (CREATE2 of X402Receivers, derived, so the same on every call and computable offline by the client package), written once as the static payTo of every x402 route. Whatever reaches it leaves only split: the fee to the fee collector, the rest to the recipient. No capability: an address is not a secret. The service keeps one row per receiver, never one per call or per x402 request. A receiver is funded once it received, in one round of the token's transfers, at least the smallest amount a split pays a fee on (the least amount whose floor(amount × fee_bps / 10,000) is 1): kept for good from then on. One not yet funded is forgotten X402_RECEIVER_IDLE_SECONDS (7 days by default) after it was last asked for (ask at your server's start; asking again restores it), and one caller (an IP address) holds at most X402_UNFUNDED_RECEIVERS_PER_CALLER (100) of them: a new one past that is RATE_LIMITED until the caller's oldest is forgotten; one already kept is always answered.",
  },
  "POST /v1/x402/verify-settlement": {
    operationId: "verifyX402Settlement",
    tag: "x402",
    description: `The final verdict of an x402 payment to a receiver, by the transaction x402's settle named and the nonce the agent signed: valid only when that transaction, final, holds the authorization's transfer into the recipient's receiver and the receiver's funds left split (in the same transaction, or by a final split after a front-run). The codes of POST /v1/payments/verify. No capability: every fact it reads is public on chain. ${WAIT_RULE}`,
  },
};

export const TAGS: Array<{ name: OperationDoc["tag"]; description: string }> = [
  { name: "Service", description: "Liveness and what this deployment is." },
  { name: "Payments", description: "One-time payments: intents, verification, recovery." },
  { name: "Links", description: "Links: a reusable checkout URL that mints a payment, or a subscription's terms, per visit." },
  { name: "Subscriptions", description: "Recurring terms the payer signs once; sessions for the checkout." },
  { name: "Charges", description: "Charging a subscription's period through the relayer." },
  { name: "Refunds", description: "Refunds: plain transfers from the merchant's wallet, verified on chain." },
  {
    name: "Holds",
    description:
      "Holds: the buyer's money set aside in Commerce Payments' AuthCaptureEscrow, captured in parts, voided, refunded; this service is the escrow's operator and takes the deployment's fee on each capture, never holding funds.",
  },
  { name: "Events", description: "Webhook signing keys, and reading back a capability's events after an outage." },
  {
    name: "x402",
    description:
      "An x402 v2 facilitator (scheme exact, USDC's EIP-3009 on this chain) at {base_url}/x402, for x402's own packages (HTTPFacilitatorClient): payTo is a merchant's receiver (a static address, POST /v1/x402/receivers) or a payment address (pay.deposit_address), and settling splits the fee in the same transaction. x402's shapes, not this API's error model.",
  },
];
