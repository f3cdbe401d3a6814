/**
 * `work`, or a rejection with `message` if it has not settled after `seconds`: turns a hang
 * (an orch that reads /dev/zero forever, ...) into a failure instead of a stuck suite. The
 * timer is cleared when the work settles, so it never keeps the test process alive (an
 * uncleared 30 s timer held compileTimeValues.test open 29 s after its last test).
 */
export async function withinSeconds<T>(seconds: number, message: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), seconds * 1000);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
