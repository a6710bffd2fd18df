/**
 * The rooms of src/, dev/ and scripts/, their floors, and what each may import (docs/architecture.md,
 * "The floors"). `npm run lint` runs this over src, dev and scripts; a cycle, an import up the
 * floors or across one, or a forbidden import fails it.
 */
const DOMAINS = "payments|links|recurring|refunds|webhooks|x402|holds";

/**
 * The floors, lowest first: a file imports its own room or a room on a lower floor, never one on
 * its own floor or above. So no two rooms can import each other, directly or around a circle.
 */
const FLOORS = [
  [
    "^src/wire/",
    "^src/generated/",
    "^src/errors\\.ts$",
    "^src/random\\.ts$",
    "^src/rounds\\.ts$",
    "^src/logger\\.ts$",
    "^src/deployments\\.ts$",
    "^src/block-time\\.ts$",
    "^src/config-nodes\\.ts$",
    "^src/config-budget\\.ts$",
    "^client/",
  ],
  ["^src/money\\.ts$", "^src/tokens/"],
  ["^src/config\\.ts$"],
  ["^src/chain/", "^src/store/"],
  ["^src/limits/", "^src/rules/"],
  ["^src/payments/"],
  ["^src/recurring/", "^src/holds/"],
  ["^src/links/"],
  ["^src/refunds/", "^src/x402/", "^src/webhooks/", "^src/capabilities\\.ts$"],
  ["^src/http/", "^src/checkout/"],
  ["^src/rooms/"],
  ["^src/service\\.ts$"],
  ["^dev/deploy/", "^dev/checkout/"],
  ["^dev/localchain/"],
  ["^test/"],
  ["^scripts/lib/"],
  ["^scripts/(?!lib/)"],
];
const ON_A_FLOOR = FLOORS.flat();

const floorRules = FLOORS.flatMap((rooms, floor) => {
  const above = FLOORS.slice(floor + 1).flat();
  const upward =
    above.length === 0
      ? []
      : [
          {
            name: "no-import-up-the-floors",
            comment: `Floor ${floor} (${rooms.join(" ")}) imports only its own rooms and lower floors.`,
            severity: "error",
            from: { path: rooms },
            to: { path: above },
          },
        ];
  const across = rooms.map((room) => ({
    name: "no-import-across-a-floor",
    comment: `Rooms on one floor never import each other: ${room} imports none of ${rooms.filter((other) => other !== room).join(" ")}.`,
    severity: "error",
    from: { path: room },
    to: { path: rooms.filter((other) => other !== room) },
  }));
  return [...upward, ...across.filter((rule) => rule.to.path.length > 0)];
});

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No import cycle anywhere in src/, dev/ or scripts/ (between files; the floors rule out cycles between rooms).",
      severity: "error",
      from: { path: "^(src|dev|scripts)/" },
      to: { circular: true },
    },
    {
      name: "every-room-on-a-floor",
      comment: "Every file of src/, dev/, scripts/ and test/ that imports or is imported belongs to a room on a floor (FLOORS above).",
      severity: "error",
      from: { path: "^(src|dev|scripts|test|client)/", pathNot: ON_A_FLOOR },
      to: {},
    },
    {
      name: "every-room-on-a-floor",
      comment: "Every file of src/, dev/, scripts/ and test/ that imports or is imported belongs to a room on a floor (FLOORS above).",
      severity: "error",
      from: {},
      to: { path: "^(src|dev|scripts|test|client)/", pathNot: ON_A_FLOOR },
    },
    ...floorRules,
    {
      name: "no-dev-tooling-in-service",
      comment: "Service code never imports Hardhat, the dev/ harness, tests or scripts (devDependencies and tooling).",
      severity: "error",
      from: { path: "^src", pathNot: "^src/checkout" },
      to: { path: ["(^|/)node_modules/(hardhat|@nomicfoundation)/", "^(hardhat|@nomicfoundation/.*)$", "^dev/", "^test/", "^scripts/"] },
    },
    {
      name: "domains-never-speak-http",
      comment: "Domain code returns typed results and throws domain errors; only src/http knows Express and statuses.",
      severity: "error",
      from: { path: `^src/(${DOMAINS}|chain|store|tokens|limits|wire|config|rules)/` },
      to: { path: ["^src/http/", "^node_modules/express/", "^src/service\\.ts$", "^src/rooms/"] },
    },
    {
      name: "rooms-serve-the-root",
      comment: "The rooms (src/rooms) are the composition root's parts: only service.ts and other rooms import them.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(rooms/|service\\.ts$)" },
      to: { path: "^src/rooms/" },
    },
    {
      name: "wire-is-a-leaf",
      comment: "Wire types (src/wire) are the protocol's schemas: they import zod and each other only.",
      severity: "error",
      from: { path: "^src/wire/" },
      to: { path: "^src/", pathNot: "^src/wire/" },
    },
    {
      name: "payments-know-no-other-domain",
      comment: "Links, recurring, refunds and webhooks may use payments; payments uses none of them.",
      severity: "error",
      from: { path: "^src/payments/" },
      to: { path: `^src/(links|recurring|refunds|webhooks|x402)/` },
    },
    {
      name: "links-before-webhooks",
      comment: "Links own their records and tokens; webhooks depend on links, never the other way.",
      severity: "error",
      from: { path: "^src/links/" },
      to: { path: "^src/(recurring|refunds|webhooks)/" },
    },
    {
      name: "recurring-knows-no-later-domain",
      severity: "error",
      from: { path: "^src/recurring/" },
      to: { path: "^src/(links|refunds|webhooks)/" },
    },
    {
      name: "nothing-depends-on-webhooks-but-the-root",
      comment: "Webhooks watch the other domains; the other domains reach it only through ports the composition root (service.ts and its rooms) wires.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(webhooks/|rooms/|service\\.ts$|http/)" },
      to: { path: "^src/webhooks/" },
    },
    {
      name: "x402-knows-payments-only",
      comment: "The x402 facilitator settles payment addresses: it may use payments/, never a later domain.",
      severity: "error",
      from: { path: "^src/x402/" },
      to: { path: "^src/(links|recurring|refunds|webhooks)/" },
    },
    {
      name: "holds-know-payments-only",
      comment: "Holds send through the relayer's rules (payments/relayer-call.ts); events reach webhooks through a port.",
      severity: "error",
      from: { path: "^src/holds/" },
      to: { path: "^src/(links|recurring|refunds|webhooks|x402)/" },
    },
    {
      name: "checkout-is-browser-code",
      comment:
        "The checkout runs in the browser: it imports the wire schemas, money formatting, the typed data a wallet signs and the typed client (client/src), never server code.",
      severity: "error",
      from: { path: "^src/checkout/" },
      to: { path: "^src/", pathNot: "^src/(checkout|wire)/|^src/money\\.ts$|^src/chain/token-authorizations\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
