import type { Client } from '@temporalio/client';
import { IdvSummary } from '../../common/search-attributes';

/**
 * Every run the query lists carries its summary as the search attribute `IdvSummary` (what the web
 * UI's workflows list can show), the same text as its user metadata's summary where the run has one
 * (a run continued as new has none, but keeps its search attributes). Fails naming the first run
 * that does not; answers the workflow types it saw, so a test can say which starts it covered.
 */
export async function expectSummaryAttributes(client: Client, query: string): Promise<Set<string>> {
  const types = new Set<string>();
  for await (const execution of client.workflow.list({ query })) {
    const run = `${execution.type} ${execution.workflowId} (${execution.runId})`;
    const attribute = execution.typedSearchAttributes.get(IdvSummary);
    if (!attribute) throw new Error(`${run} has no IdvSummary search attribute`);
    const summary = await (
      await client.workflow.getHandle(execution.workflowId, execution.runId).describe()
    ).staticSummary();
    if (summary !== undefined && summary !== attribute)
      throw new Error(
        `${run}: IdvSummary ${JSON.stringify(attribute)} is not its summary ${JSON.stringify(summary)}`,
      );
    types.add(execution.type);
  }
  return types;
}
