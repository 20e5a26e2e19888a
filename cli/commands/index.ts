import { type Command } from '../command';
import { codecServerCommand } from './codec-server';
import { demoCommand } from './demo';
import { devCommand } from './dev';
import { emulatorCommand } from './emulator';
import { cancelCommand, redactCommand, statusCommand, watchCommand } from './follow-commands';
import { listCommand, providersCommand, redirectUrisCommand, sweepCommand } from './service-commands';
import { verifyCommand } from './verify';
import { workerCommand } from './worker';
import { receiverCommand } from './receiver';
import { webhooksCommand } from './webhooks';
import { migrateCommand } from './migrate';
import { describeCommand } from './describe';
import { recordsCommand } from './records';
import { keyringCommand } from './keyring';
import { deploymentCommand } from './deployment';
import { redirectCapturedCommand, refreshStepCommand, submitChallengeCommand } from './step-commands';

/** Every `idv` command, in help order. */
export const commands: readonly Command[] = [
  devCommand,
  workerCommand,
  emulatorCommand,
  codecServerCommand,
  receiverCommand,
  demoCommand,
  verifyCommand,
  statusCommand,
  watchCommand,
  describeCommand,
  redirectCapturedCommand,
  refreshStepCommand,
  submitChallengeCommand,
  cancelCommand,
  redactCommand,
  listCommand,
  recordsCommand,
  keyringCommand,
  deploymentCommand,
  sweepCommand,
  providersCommand,
  redirectUrisCommand,
  webhooksCommand,
  migrateCommand,
];
