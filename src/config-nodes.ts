/**
 * A node's URL as one machine's name: scheme and host lower-cased, the scheme's default port
 * dropped, no trailing slash on the path, no fragment. Two entries alike here are one node. (Two
 * names for one machine, an IP and a hostname say, cannot be told apart here.)
 */
export function nodeKey(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, "");
  const auth = u.username || u.password ? `${u.username}:${u.password}@` : "";
  // URL already lower-cases scheme and host and drops a default port.
  return `${u.protocol}//${auth}${u.host}${path}${u.search}`;
}

/**
 * Who answers behind a URL, as far as independence goes: its hostname. Two URLs of one host (another
 * port, path or key at one provider) are one provider's word, however many keys it sells.
 */
export function hostOf(url: string): string {
  return new URL(url).hostname;
}

/**
 * How many independent nodes a list is: its distinct hosts; each URL on its own only when
 * RPC_QUORUM_UNSAFE says the operator means it.
 */
export function independentNodes(urls: readonly string[], unsafe: boolean): number {
  return unsafe ? new Set(urls.map(nodeKey)).size : new Set(urls.map(hostOf)).size;
}

/** Positions in RPC_URLS that share a host with an earlier one, each as "a and b". */
export function sharedHosts(urls: readonly string[]): string[] {
  const first = new Map<string, number>();
  const shared: string[] = [];
  urls.forEach((url, position) => {
    const seen = first.get(hostOf(url));
    if (seen === undefined) first.set(hostOf(url), position);
    else if (nodeKey(urls[seen]!) !== nodeKey(url)) shared.push(`${seen} and ${position}`);
  });
  return shared;
}

/**
 * What stops a start in the nodes' list (RPC_URLS): the same node twice (a "majority" of one
 * machine), and an RPC_QUORUM below a majority of the independent nodes (one node's word, or a
 * minority overruling the rest) unless RPC_QUORUM_UNSAFE says the operator means it. Nodes are
 * named by position only: a URL may carry a key.
 */
export function nodeProblems(urls: readonly string[], quorum: number, unsafe: boolean): string[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  urls.forEach((url, position) => {
    const key = nodeKey(url);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, position);
    else
      problems.push(
        `RPC_URLS: positions ${seen} and ${position} are the same node (same URL once scheme and host case, default port and trailing slash are set aside)`,
      );
  });
  const independent = independentNodes(urls, unsafe);
  const majority = Math.floor(independent / 2) + 1;
  if (first.size > 1 && quorum < majority && !unsafe) {
    problems.push(
      `RPC_QUORUM: ${quorum} is below a majority of the ${independent} nodes (${majority}): fewer nodes could overrule the rest; set RPC_QUORUM_UNSAFE=1 to run so anyway`,
    );
  }
  if (quorum > Math.max(independent, 1) && !unsafe) {
    problems.push(
      `RPC_QUORUM: ${quorum} is more than the ${independent} independent hosts in RPC_URLS (URLs of one host count once): no verdict could be reached; set RPC_QUORUM_UNSAFE=1 to count each URL`,
    );
  }
  return problems;
}
