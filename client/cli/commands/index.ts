import { type Command } from '../command';
import { devCommand } from './dev';
import { emulatorCommand } from './emulator';

/** Every `idv` command, in help order. */
export const commands: readonly Command[] = [devCommand, emulatorCommand];
