// `idv-temporal/emulator`: the local Identity Verification Service and earlier platform, for a
// business service's own tests (what `idv dev` and `idv emulator` run).
export { emulatorInfo, startEmulator } from './emulator';
export type { Emulator, EmulatorInfo, EmulatorOptions } from './emulator';
export { emulatorControl } from './control-client';
export type { EmulatorControl } from './control-client';
