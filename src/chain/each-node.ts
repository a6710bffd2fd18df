import type { ChainNode } from "./node.js";
import type { ChainNodes } from "./nodes.js";

/** What each node answered; a node that failed is left out: it has no say. */
export async function askEach<T>(nodes: ChainNodes, read: (node: ChainNode) => Promise<T>): Promise<Array<{ node: ChainNode; answer: T }>> {
  const answers = await Promise.all(
    nodes.nodes.map((node) =>
      read(node).then(
        (answer) => ({ node, answer }),
        () => null,
      ),
    ),
  );
  return answers.filter((a) => a !== null);
}

/** The quorum-th highest of the hosts' values (each host's highest): no host alone moves it either way. */
export function quorumth(nodes: ChainNodes, answers: Array<{ node: ChainNode; value: bigint }>): bigint | null {
  const byHost = new Map<string, bigint>();
  for (const { node, value } of answers) if ((byHost.get(node.independentAs) ?? -1n) < value) byHost.set(node.independentAs, value);
  const values = [...byHost.values()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  return values.length >= nodes.quorum ? values[nodes.quorum - 1]! : null;
}
