import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type VerificationOutcome, type VerificationProgress } from '../../verification/domain/verification';
import { redactionWorkflowId } from '../../verification/shared/ids';
import {
  askWorker,
  metadataLines,
  type WorkerAnswer,
  type WorkflowMetadataView,
  workerDeadline,
  workflowMetadata,
} from '../workflow-metadata';
import { type Command } from '../command';
import { outcomeLines, printJson, progressLine } from '../output';
import { withVerification } from './follow-commands';
import { referenceArg } from './reference-arg';

/** The outcome without the person: identity data and attachments named, not shown. */
function withoutPersonalData(outcome: VerificationOutcome): Record<string, unknown> {
  const { identity, attachments, ...rest } = outcome;
  return {
    ...rest,
    ...(identity
      ? { identity: `hidden (fields: ${Object.keys(identity).join(', ')}; --show-data shows them)` }
      : {}),
    ...(attachments ? { attachments: attachments.length } : {}),
  };
}

/** The verification's redaction workflow, once one was started: its status and user metadata. */
async function redactionView(
  client: Client,
  progress: { sessionId?: string; dataKeyId?: string },
  deadline: number,
): Promise<({ workflowId: string; workflowStatus: string } & WorkflowMetadataView) | undefined> {
  if (!progress.sessionId && !progress.dataKeyId) return undefined;
  const workflowId = redactionWorkflowId(progress);
  const handle = client.workflow.getHandle(workflowId);
  try {
    const description = await handle.describe();
    return {
      workflowId,
      workflowStatus: description.status.name,
      ...(await workflowMetadata(client, handle, description, deadline)),
    };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** `idv describe <reference>`: everything about a verification, the person only when asked. */
export const describeCommand: Command = {
  name: 'describe',
  takesArguments: true,
  summary:
    "Describe a verification: progress, its workflow's summary and details (as the Temporal UI shows them), history size, outcome (personal data only with --show-data) and its redaction",
  usage: 'describe <reference> [--show-data] [--json]',
  options: {
    'show-data': {
      type: 'boolean',
      description: 'include the identity data and attachment links of the outcome',
    },
  },
  async run(args, io) {
    const reference = referenceArg(args, 'describe');
    const showData = args.values['show-data'] === true;
    return await withVerification(io, reference, async ({ idv }) => {
      const handle = idv.getVerification(reference);
      const description = await handle.workflow.describe();
      const running = description.status.name === 'RUNNING';
      // One question at a time, within one bound: while a query waits for a worker, the server
      // refuses another to the same workflow. An ended verification's progress is read from its
      // record or history, not asked of a worker: the bound starts after it.
      const runningDeadline = running ? workerDeadline() : undefined;
      const answer: WorkerAnswer<VerificationProgress> = runningDeadline
        ? await askWorker(idv.client, description, () => handle.progress(), runningDeadline)
        : await handle.progress().then(
            (value) => ({ value }),
            (error: unknown) => ({
              missing: `could not be read: ${error instanceof Error ? error.message : String(error)}`,
            }),
          );
      const deadline = runningDeadline ?? workerDeadline();
      const metadata = await workflowMetadata(idv.client, handle.workflow, description, deadline);
      const progress = 'value' in answer ? answer.value : undefined;
      const progressMissing = 'missing' in answer ? answer.missing : undefined;
      const redaction = progress ? await redactionView(idv.client, progress, deadline) : undefined;
      let outcome: VerificationOutcome | undefined;
      let failure: string | undefined;
      if (!running) {
        try {
          outcome = await handle.result({ confirmDelivery: false });
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
      }
      const view = {
        reference,
        workflowId: handle.workflowId,
        workflowStatus: description.status.name,
        historyEvents: description.historyLength,
        historySizeBytes: description.historySize,
        ...metadata,
        ...(progress ? { progress } : { progressMissing }),
        ...(outcome ? { outcome: showData ? outcome : withoutPersonalData(outcome) } : {}),
        ...(redaction ? { redaction } : {}),
        ...(failure ? { failure } : {}),
      };
      if (args.values.json === true) {
        printJson(io, view);
        return 0;
      }
      const lines = [
        `reference: ${reference}`,
        `workflow:  ${handle.workflowId} (${description.status.name}, ${description.historyLength} history events, ${description.historySize} bytes)`,
        ...metadataLines(metadata),
        `progress:  ${progress ? progressLine(progress) : `(${progressMissing})`}`,
        ...(outcome ? (showData ? [JSON.stringify(outcome, null, 2)] : outcomeLines(outcome)) : []),
        ...(failure ? [`failure: ${failure}`] : []),
        ...(redaction
          ? [
              `redaction: ${redaction.workflowId} (${redaction.workflowStatus})`,
              ...metadataLines(redaction).map((line) => `  ${line}`),
            ]
          : []),
      ];
      io.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    });
  },
};
