/**
 * Waits until `condition()` holds, checking every few milliseconds. The bound
 * only turns a hang into a failure that names what was awaited; a test built
 * on it asserts what happens, never how long it took.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  boundMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
