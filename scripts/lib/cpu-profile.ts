// The top functions of a V8 CPU profile (.cpuprofile) by self time: where the CPU went, not who called.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** The function's name, and where it is (a path under the repository, or a package's own path). */
  name: string;
  place: string;
  ms: number;
  /** Of the profile's busy time (idle and the profiler's own session left out). */
  share: number;
}

/** Where a script is, short: under node_modules its package path, under the repository its path. */
function placeOf(url: string, line: number, root: string): string {
  if (!url) return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const inPackage = path.lastIndexOf("/node_modules/");
  const short = inPackage >= 0 ? path.slice(inPackage + "/node_modules/".length) : path.startsWith(root) ? path.slice(root.length) : path;
  return `${short}:${line + 1}`;
}

/** The `n` functions with the most self time in the profile at `file`, and the busy time they are shares of. */
export function topSelfTime(file: string, n: number, root: string): { busyMs: number; top: SelfTime[] } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, { name: string; place: string; us: number }>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    // Idle, and the profiler's own session (its start is sampled as the inspector's `post`).
    if (functionName === "(idle)" || url === "node:inspector") return;
    const us = profile.timeDeltas[i] ?? 0;
    busyUs += us;
    const place = placeOf(url, lineNumber, root);
    const key = `${functionName} ${place}`;
    const entry = self.get(key) ?? { name: functionName || "(anonymous)", place, us: 0 };
    entry.us += us;
    self.set(key, entry);
  });
  const top = [...self.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, n)
    .map((e) => ({ name: e.name, place: e.place, ms: e.us / 1000, share: busyUs ? e.us / busyUs : 0 }));
  return { busyMs: busyUs / 1000, top };
}
