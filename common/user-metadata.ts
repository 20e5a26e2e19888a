import type { SearchAttributePair } from '@temporalio/common';
import { IdvSummary } from './search-attributes';

/**
 * What a workflow start sets as Temporal's user metadata: the one-line summary and the details
 * the Temporal UI and `temporal workflow describe` show beside the IDs (payloads like any other:
 * encrypted, decoded by the codec server), and the summary again as the search attribute
 * `IdvSummary`, which the UI's workflows list can show as a column. Never personal data.
 */
export interface StartMetadata {
  staticSummary: string;
  staticDetails: string;
  typedSearchAttributes: SearchAttributePair[];
}

/** A start's metadata: its summary, and its details as Markdown lines (see {@link markdownLines}). */
export function startMetadata(staticSummary: string, details: readonly string[]): StartMetadata {
  return {
    staticSummary,
    staticDetails: markdownLines(details),
    typedSearchAttributes: [{ key: IdvSummary, value: staticSummary }],
  };
}

/** A Markdown line break: the UI renders details as Markdown. */
const LINE_BREAK = '  \n';

/** Details as Markdown lines, the empty ones left out. */
export function markdownLines(parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join(LINE_BREAK);
}

/**
 * A run continued as new has no summary of its own (continue-as-new carries no metadata, and the
 * SDK cannot set it there), so its current details begin with the summary.
 */
export function detailsLedBySummary(summary: string, details: string): string {
  return `${summary}${LINE_BREAK}${details}`;
}

/** Current details without the summary a continued run leads them with (see {@link detailsLedBySummary}). */
export function detailsAfterSummary(summary: string, details: string): string {
  const lead = `${summary}${LINE_BREAK}`;
  return details.startsWith(lead) ? details.slice(lead.length) : details;
}
