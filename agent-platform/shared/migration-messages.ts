import { defineQuery } from '@temporalio/workflow';

// Names are stable API, like those of messages.ts.

/** Steps of a migration, in order. */
export const migrationStages = [
  'inventory',
  'convert',
  'apply',
  'cut-over',
  'compensate',
  'report',
  'done',
] as const;

/** Where a migration is, as `progress` answers. */
export interface MigrationProgress {
  tenant: string;
  mode: 'dry-run' | 'apply';
  stage: (typeof migrationStages)[number];
  redirectUris: { needed: number; registered: number; skipped: number };
  webhooks: { toDisable: number; disabled: number; reEnabled: number };
  /** Flags raised by the conversion so far. */
  flags: number;
}

/** Query: where the migration is. */
export const migrationProgressQuery = defineQuery<MigrationProgress>('progress');
