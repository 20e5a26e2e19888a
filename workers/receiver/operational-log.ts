/** Fields of an operational event: counts, kinds, file names; never ids of people, tokens or error texts. */
export type OperationalFields = Readonly<Record<string, string | number>>;

/** Severity of an operational event. */
export type OperationalLevel = 'info' | 'warn' | 'error';

/**
 * Where the receiver's and the spool's operational events go: a fixed message, its fields and
 * its level (`info` unless said). A `(line) => void` callback fits too and gets the message only.
 */
export type OperationalLog = (message: string, fields?: OperationalFields, level?: OperationalLevel) => void;

/**
 * Counts the times something happens and tells which ones to say: the first and every 100th
 * after, so a fault that keeps repeating (a Temporal refusing, a misconfigured sender) fills no
 * log while its count still shows how often.
 */
export class SampledCount {
  #count = 0;

  /** The times counted so far. */
  get count(): number {
    return this.#count;
  }

  /** Counts one more; true when this one is to be said. */
  add(): boolean {
    this.#count += 1;
    return this.#count % 100 === 1;
  }
}
