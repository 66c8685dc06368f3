// Waiting for a state a test brings about (a slot busy, a connection closed), polling: no time
// limit of its own, so a wait never asserts how fast a machine is; the test's timeout, sized by its
// work (test/support/timeouts.ts), bounds it.

/** Resolves once `check` holds, asking every 20 ms. */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}
