/** Dates as people write birth dates: 1990-01-31, 19900131, 31.01.1990, 31011990 (not inside a longer number). */
const FULL_DATE = new RegExp(
  [
    String.raw`(?<!\d)(?:19|20)\d{2}[-._/]?(?:0[1-9]|1[0-2])[-._/]?(?:0[1-9]|[12]\d|3[01])(?!\d)`,
    String.raw`(?<!\d)(?:0[1-9]|[12]\d|3[01])[-._/]?(?:0[1-9]|1[0-2])[-._/]?(?:19|20)\d{2}(?!\d)`,
  ].join('|'),
);
/** Words of a reference that are business vocabulary, not names. */
const BUSINESS_WORDS = new Set(
  (
    'order ord case ref reference kyc kyb aml idv inv invoice customer cust client account acct app ' +
    'application applicant ticket req request onboarding onboard verification verify check txn ' +
    'transaction payment loan contract policy claim booking session test demo batch job run sub ' +
    'subscription member signup registration reg renewal review user new retry'
  ).split(' '),
);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A hex id or hash part: hex digits with at least one digit and one letter. */
const HEX_TOKEN = /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]+$/i;

/**
 * Letter runs of at least two, camelCase split (`AdaLovelace` is two words), that are not
 * business vocabulary, after uuids and hex ids (full of `dfbf`, `eac`) are taken out.
 */
function nameLikeWords(reference: string): string[] {
  const tokens = reference
    .replace(UUID, ' ')
    .split(/[-._:/\s]+/)
    .filter((token) => !HEX_TOKEN.test(token));
  const words =
    tokens
      .join(' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .match(/[A-Za-z]{2,}/g) ?? [];
  return words.map((word) => word.toLowerCase()).filter((word) => !BUSINESS_WORDS.has(word));
}

/**
 * Why a business reference looks like personal data (it becomes a workflow ID, visible to every
 * operator and kept in Temporal's visibility store), or undefined. Refused: an email address; a
 * birth-date-like date beside two words that are not business vocabulary, a name
 * (`ada-lovelace-1990-12-10`, `AdaLovelace-10121990`). A heuristic that errs towards accepting
 * (`acme-2025-11-22-0001` and uuids pass; `lovelace-1990-12-10` passes too): the rule stays "an
 * order or case number, never a person's data".
 */
export function personalDataInReference(reference: string): string | undefined {
  if (reference.includes('@')) return 'must not be an email address (no personal data in workflow IDs)';
  if (FULL_DATE.test(reference) && nameLikeWords(reference).length >= 2)
    return 'looks like a name with a date (no personal data in workflow IDs): use an order or case number';
  return undefined;
}
