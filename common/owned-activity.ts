import { CancellationScope } from '@temporalio/workflow';

/** How an owned activity ended. */
export type Settled<T> = { value: T } | { error: unknown };

/**
 * An activity the main flow runs in the background and owns: started in a scope of its own,
 * stopped (cancelled and awaited) by the owner, its result or failure handed over once.
 */
export class OwnedActivity<T> {
  #scope: CancellationScope | undefined;
  #running: Promise<void> | undefined;
  #settled: Settled<T> | undefined;

  /** True between `start` and the moment its result is taken or it is stopped. */
  get active(): boolean {
    return this.#running !== undefined;
  }

  /** True when it ended and its result waits to be taken. */
  get settled(): boolean {
    return this.#settled !== undefined;
  }

  start(run: () => Promise<T>): void {
    const scope = new CancellationScope();
    this.#scope = scope;
    this.#settled = undefined;
    this.#running = scope.run(run).then(
      (value) => void (this.#settled = { value }),
      (error: unknown) => void (this.#settled = { error }),
    );
  }

  /** The result, once settled; the activity is no longer active afterwards. */
  take(): Settled<T> | undefined {
    const settled = this.#settled;
    if (settled) this.#reset();
    return settled;
  }

  /** Cancels it if still running and waits until it has ended; its result is dropped. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    if (!this.#settled) this.#scope?.cancel();
    await this.#running;
    this.#reset();
  }

  #reset(): void {
    this.#scope = undefined;
    this.#running = undefined;
    this.#settled = undefined;
  }
}
