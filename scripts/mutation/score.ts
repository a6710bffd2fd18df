/** A surviving mutant, where it stands. */
export interface Survivor {
  place: string;
  mutator: string;
  replacement: string;
  /** The contracts' mutant id, for the list of equivalent mutants. */
  id?: string;
}

/** A module's or contract's result, as `npm run mutation` prints it. */
export interface ModuleScore {
  name: string;
  score: number;
  killed: number;
  survived: Survivor[];
  equivalent: number;
  stillborn: number;
}

/** Killed ÷ (killed + survived), in percent; 100 with nothing counted. */
export function percentKilled(killed: number, survived: number): number {
  const counted = killed + survived;
  return counted === 0 ? 100 : (100 * killed) / counted;
}
