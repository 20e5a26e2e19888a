import { type Command } from '../command';
import { devCommand } from './dev';

/** Every `idv` command, in help order. */
export const commands: readonly Command[] = [devCommand];
