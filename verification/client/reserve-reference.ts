import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type DataKeys } from '../../codec/data-keys';
import { type SessionVault } from '../../stores/session-vault';
import {
  RecordContendedError,
  type VerificationRecord,
  type VerificationRecords,
} from '../../stores/verification-records';

/** What {@link reserveReference} found. */
export type Reservation =
  /** The reference is new: its record is made. */
  | { kind: 'new' }
  /** Its verification exists in Temporal: Temporal joins a running one and refuses a closed one. */
  | { kind: 'existing' }
  /** An earlier start never ran (nothing was created): this start takes the record over. */
  | { kind: 'restarted'; previousDataKeyId: string }
  /**
   * Its verification ran (ended, or ran and Temporal no longer keeps it), or its data was erased:
   * the reference is used.
   */
  | { kind: 'used'; record: VerificationRecord };

/**
 * Keeps a reference for one verification for as long as its record is kept, past Temporal's
 * retention: the one rule for a start's reference, used by `IdvClient` and the onboarding.
 * `workflowId` is its verification's workflow, which `client` looks up (running or closed).
 * Throws {@link RecordContendedError} when the record keeps changing under it; on any failure the
 * start's data key is destroyed first.
 */
export async function reserveReference(
  store: ReservationStore,
  start: VerificationRecord,
  options: { workflowId: string; client: Pick<Client, 'workflow'> },
): Promise<Reservation> {
  try {
    for (let tries = 0; tries < RESERVATION_TRIES; tries += 1) {
      const reservation = await reserveOnce(store, start, options);
      if (reservation !== 'again') return reservation;
    }
    throw new RecordContendedError(
      `could not reserve the reference ${start.reference}: its record was purged or started anew ${RESERVATION_TRIES} times meanwhile`,
    );
  } catch (error) {
    // Nothing kept is sealed with the start's key, and a record may not name it for an erasure to
    // find. A store that refused the reservation may refuse this too: its error is the one said.
    await store.dataKeys.destroy(start.dataKeyId).catch(() => undefined);
    throw error;
  }
}

type ReservationStore = {
  records: Pick<VerificationRecords, 'reserve' | 'get' | 'restarted'>;
  vault: Pick<SessionVault, 'creation'>;
  /** Destroys the start's key when the reservation fails. */
  dataKeys: Pick<DataKeys, 'destroy'>;
};

/** A take-over's record purged, or made anew by another start, before it read it again: reserve again. */
const RESERVATION_TRIES = 3;

async function reserveOnce(
  store: ReservationStore,
  start: VerificationRecord,
  options: { workflowId: string; client: Pick<Client, 'workflow'> },
): Promise<Reservation | 'again'> {
  const { created, record } = await store.records.reserve(start);
  if (created) return { kind: 'new' };
  // An erasure is final for the reference: a start taken over after it would collect the
  // person's data again under a record that says it was erased.
  if (record.status !== 'started' || record.redactedAt !== undefined) return { kind: 'used', record };
  const exists = await options.client.workflow
    .getHandle(options.workflowId)
    .describe()
    .then(
      () => true,
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
  if (exists) return { kind: 'existing' };
  // Gone from Temporal with no ending recorded: it ran if it claimed a session or closed creation.
  if (await store.vault.creation(options.workflowId)) return { kind: 'used', record };
  const takenOver = await store.records.restarted(start.reference, {
    dataKeyId: start.dataKeyId,
    startedAt: start.startedAt,
  });
  // Ended or erased since it was read (a start that ran after all, an erasure): used.
  if (!takenOver) return { kind: 'used', record: (await store.records.get(start.reference)) ?? record };
  // An erasure or an ending that landed while a store checked, then wrote (the file store) read
  // the record before this start's key was in it: read again, this start is refused as used (the
  // caller destroys its key), as PostgreSQL's take-over refuses it, and the erasure stays final.
  // Whichever of the two writes last sees the other.
  const taken = await store.records.get(start.reference);
  if (taken !== undefined && (taken.status !== 'started' || taken.redactedAt !== undefined))
    return { kind: 'used', record: taken };
  // A record that no longer names this start's key was purged, or made anew by another start
  // under the reference, since it was read: a key named by no record survives every erasure.
  const named = taken?.dataKeyId === start.dataKeyId || taken?.supersededKeyIds?.includes(start.dataKeyId);
  if (!named) return 'again';
  return { kind: 'restarted', previousDataKeyId: record.dataKeyId };
}
