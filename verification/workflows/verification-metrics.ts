import { metricMeter } from '@temporalio/workflow';
import { type VerificationProgress } from '../domain/outcome';

/**
 * Records a verification's end on the worker's meter (the SDK adds namespace, task queue and
 * workflow type, and emits nothing while replaying): `idv_verifications_ended{status}` and the
 * histogram `idv_session_polls_per_verification` (its GetSession calls). Adds no command, so
 * histories recorded before it replay unchanged.
 */
export function recordVerificationEnd(progress: VerificationProgress): void {
  metricMeter
    .createCounter('idv_verifications_ended', 'verifications', 'Verifications ended, by status')
    .add(1, { status: progress.status });
  metricMeter
    .createHistogram(
      'idv_session_polls_per_verification',
      'int',
      'calls',
      'GetSession calls of one verification',
    )
    .record(progress.apiCalls.GetSession ?? 0);
}
