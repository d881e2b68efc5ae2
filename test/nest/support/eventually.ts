/**
 * Waits until `condition()` holds. The bound only turns a hang into a failure
 * naming what was awaited; nothing asserts how long anything took.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  boundMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
