/**
 * A value in a Temporal visibility query, quoted: its quotes and backslashes are dropped (task
 * queues, references and types never hold them; a value that did cannot break out of the quotes).
 */
export function queryValue(value: string): string {
  return `'${value.replace(/['\\]/g, '')}'`;
}
