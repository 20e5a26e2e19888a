/** The emulator's clock: real time plus an offset that tests can advance. */
export class EmulatorClock {
  #offsetMs = 0;

  /** Milliseconds since the epoch, as the emulator sees them. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** Unix seconds, as the wire's `created` / `updated` fields carry them. */
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** How far the emulator's time is ahead of real time (kept across restarts). */
  offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the emulator's time forward (expiry, automatic redaction, step refresh). */
  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}
