import { loadClientConnectConfig } from '@temporalio/envconfig';
import { type NativeConnectionOptions } from '@temporalio/worker';
import { type IdvConfig } from './config';
import { type StackInfo } from './dev/stack-file';

/** Where to connect to Temporal, and in which namespace. */
export interface TemporalTarget {
  connectionOptions: NativeConnectionOptions;
  namespace: string | undefined;
}

/**
 * The Temporal cluster of `TEMPORAL_ADDRESS` / `TEMPORAL_PROFILE` (envconfig, Temporal Cloud
 * included) when set, otherwise the embedded stack's dev server; undefined when neither exists.
 */
export function temporalTarget(
  config: IdvConfig,
  env: NodeJS.ProcessEnv,
  stack: StackInfo | undefined,
): TemporalTarget | undefined {
  if (config.temporalFromEnvironment) {
    const connect = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
    return { connectionOptions: connect.connectionOptions, namespace: connect.namespace };
  }
  return stack
    ? { connectionOptions: { address: stack.temporalAddress }, namespace: stack.namespace }
    : undefined;
}
