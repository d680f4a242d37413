/**
 * A meeting point for requests held at a TestPauses hook: each `arrive()` waits until `parties` have
 * arrived, then all go on together. So each of them has done what comes before the hook (a read) before any
 * does what comes after it (a write): the interleaving a race needs, made every time. Should fewer arrive
 * within `ms`, the waiting ones fail, and so does the test, rather than hang.
 */
export interface RaceGate {
  arrive(): Promise<void>;
  /** How many arrived so far. */
  readonly arrived: number;
}

export function raceGate(parties: number, ms = 5_000): RaceGate {
  let arrived = 0;
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrive() {
      arrived += 1;
      if (arrived === parties) open();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`race gate: ${arrived} of ${parties} arrived within ${ms} ms`)),
          ms,
        );
      });
      return Promise.race([opened, late]).finally(() => clearTimeout(timer));
    },
    get arrived() {
      return arrived;
    },
  };
}
