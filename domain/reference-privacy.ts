/** A date as people write birth dates: 1990-01-31, 19900131, 31.01.1990, 31/01/1990. */
const DATE =
  /(?:19|20)\d{2}[-._/]?(?:0[1-9]|1[0-2])[-._/]?(?:0[1-9]|[12]\d|3[01])|(?:0[1-9]|[12]\d|3[01])[-._/](?:0[1-9]|1[0-2])[-._/](?:19|20)\d{2}/;
const WORD = /[A-Za-z]{2,}/g;

/**
 * Why a business reference looks like personal data (it becomes a workflow ID, visible to every
 * operator and kept in Temporal's visibility store), or undefined. Refused: an email address, and
 * a date together with two or more words (a name and a birth date: `ada-lovelace-1990-12-10`).
 * An order or case number with a date (`order-2026-11-22-0001`) is fine.
 */
export function personalDataInReference(reference: string): string | undefined {
  if (reference.includes('@')) return 'must not be an email address (no personal data in workflow IDs)';
  if (DATE.test(reference) && (reference.match(WORD) ?? []).length >= 2)
    return 'looks like a name with a date (no personal data in workflow IDs): use an order or case number';
  return undefined;
}
