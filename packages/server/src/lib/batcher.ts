/**
 * Gathers the calls made in one turn of the event loop into one call of `run`, so that concurrent requests
 * share a statement and a round trip to the database instead of each sending its own. Under load a turn
 * handles every request that arrived meanwhile, so batches grow with the load; alone, a call waits only for
 * the end of the current turn. `run` answers each input in order, with a value or a promise of one (an input
 * retried on its own); if `run` itself fails, every call of the batch fails with its error.
 */
export class Batcher<In, Out> {
  private pending: { input: In; resolve(out: Out | PromiseLike<Out>): void; reject(err: unknown): void }[] =
    [];

  constructor(
    private readonly run: (inputs: In[]) => Promise<ReadonlyArray<Out | PromiseLike<Out>>>,
    private readonly maxBatch: number,
  ) {}

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ input, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
    });
  }

  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.run(batch.map((call) => call.input)).then(
      (outs) => {
        for (const [i, call] of batch.entries()) call.resolve(outs[i] as Out);
      },
      (err: unknown) => {
        for (const call of batch) call.reject(err);
      },
    );
  }
}
