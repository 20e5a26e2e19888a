/** Fields of an operational event: counts, kinds, file names; never ids of people, tokens or error texts. */
export type OperationalFields = Readonly<Record<string, string | number>>;

/** Severity of an operational event. */
export type OperationalLevel = 'info' | 'warn' | 'error';

/**
 * Where the receiver's and the spool's operational events go: a fixed message, its fields and
 * its level (`info` unless said). A `(line) => void` callback fits too and gets the message only.
 */
export type OperationalLog = (message: string, fields?: OperationalFields, level?: OperationalLevel) => void;
