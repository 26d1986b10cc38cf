// Every wait of the end-to-end test has a deadline and says what it waited for.

export class Timeout extends Error {}

/**
 * Runs ``body(signal)`` and fails with "timed out after N ms: <what>" when it
 * has not settled by then (the signal is aborted so that loops can stop).
 */
export async function deadline(ms, what, body) {
  const controller = new AbortController();
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Timeout(`timed out after ${ms} ms: ${what}`));
    }, ms);
  });
  try {
    return await Promise.race([body(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls ``probe`` until it returns a value other than undefined/null/false,
 * and returns that value; fails after ``ms`` with the last value seen.
 */
export async function until(ms, what, probe, { every = 100 } = {}) {
  let last;
  try {
    return await deadline(ms, what, async (signal) => {
      for (;;) {
        last = await probe();
        if (last !== undefined && last !== null && last !== false) return last;
        if (signal.aborted) return undefined;
        await new Promise((resolve) => setTimeout(resolve, every));
      }
    });
  } catch (error) {
    if (error instanceof Timeout && last !== undefined) {
      error.message += ` (last seen: ${JSON.stringify(last)})`;
    }
    throw error;
  }
}

/** Polls ``read`` until it returns ``expected``; fails with the last value read. */
export async function untilEqual(ms, what, read, expected) {
  let last;
  try {
    await until(ms, what, async () => {
      last = await read();
      return last === expected;
    });
  } catch (error) {
    if (error instanceof Timeout) error.message += ` (last read: ${JSON.stringify(last)})`;
    throw error;
  }
}
