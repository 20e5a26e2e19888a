/** Dates as people write birth dates: 1990-01-31, 19900131, 31.01.1990, 31011990 (not inside a longer number). */
const FULL_DATE = new RegExp(
  [
    String.raw`(?<!\d)(?:19|20)\d{2}[-._/]?(?:0[1-9]|1[0-2])[-._/]?(?:0[1-9]|[12]\d|3[01])(?!\d)`,
    String.raw`(?<!\d)(?:0[1-9]|[12]\d|3[01])[-._/]?(?:0[1-9]|1[0-2])[-._/]?(?:19|20)\d{2}(?!\d)`,
  ].join('|'),
);
/** Short dates (311290, 901231): counted only beside two name-like words. */
const SHORT_DATE = /(?:^|\D)(?:\d{2}(?:0[1-9]|1[0-2])\d{2})(?:\D|$)/;
/** Words of a reference that are business vocabulary, not names. */
const BUSINESS_WORDS = new Set(
  (
    'order ord case ref reference kyc kyb aml idv inv invoice customer cust client account acct app ' +
    'application applicant ticket req request onboarding onboard verification verify check txn ' +
    'transaction payment loan contract policy claim booking session test demo batch job run sub ' +
    'subscription member signup registration reg renewal review user new retry'
  ).split(' '),
);

/** Letter runs of at least three, camelCase split (`AdaLovelace` is two words). */
function nameLikeWords(reference: string): string[] {
  const words = reference.replace(/([a-z])([A-Z])/g, '$1 $2').match(/[A-Za-z]{3,}/g) ?? [];
  return words.map((word) => word.toLowerCase()).filter((word) => !BUSINESS_WORDS.has(word));
}

/**
 * Why a business reference looks like personal data (it becomes a workflow ID, visible to every
 * operator and kept in Temporal's visibility store), or undefined. Refused: an email address; a
 * birth-date-like date beside a word that is not business vocabulary (`lovelace-1990-12-10`,
 * `AdaLovelace-10121990`); a short date beside two such words. A heuristic: it cannot tell every
 * name, so the rule stays "an order or case number, never a person's data".
 */
export function personalDataInReference(reference: string): string | undefined {
  if (reference.includes('@')) return 'must not be an email address (no personal data in workflow IDs)';
  const words = nameLikeWords(reference);
  if ((FULL_DATE.test(reference) && words.length >= 1) || (SHORT_DATE.test(reference) && words.length >= 2))
    return 'looks like a name with a date (no personal data in workflow IDs): use an order or case number';
  return undefined;
}
