/**
 * Waits until `condition` holds, checking it every `everyMs` (0: on the next turn of the event
 * loop), and fails naming what it waited for once `timeoutMs` pass: no wait in a test is unbounded,
 * and none decides an outcome by its length.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, { timeoutMs = 20_000, everyMs = 5 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => (everyMs > 0 ? setTimeout(resolve, everyMs) : setImmediate(resolve)));
  }
}
