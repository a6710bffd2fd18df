/** Asks `probe` every `pollMs` until it answers (not null) or `waitMs` is over (null). */
export async function poll<T>(probe: () => Promise<T | null>, waitMs: number, pollMs: number): Promise<T | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    const answer = await probe();
    if (answer !== null || Date.now() >= until) return answer;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** `read`, asked up to three times, a quarter second apart, before its error stands. */
export async function retried<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
