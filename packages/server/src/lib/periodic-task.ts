/**
 * A background job on a timer: every `intervalMs` it runs `task`, skipping a tick while the previous run is
 * still going. The timer is unref'd (it never keeps the process alive), and `stop` waits for a run in
 * progress, so the store can close right after it.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.running !== undefined) return;
      this.running = this.task()
        .then(() => {}, this.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
