/**
 * What a workflow start sets as Temporal's user metadata: the one-line summary and the details
 * the Temporal UI and `temporal workflow describe` show beside the IDs (payloads like any other:
 * encrypted, decoded by the codec server). Never personal data.
 */
export interface StartMetadata {
  staticSummary: string;
  staticDetails: string;
}

/** Details as Markdown lines (the UI renders them as Markdown), the empty ones left out. */
export function markdownLines(parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join('  \n');
}
