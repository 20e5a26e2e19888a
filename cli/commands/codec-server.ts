import { CodecServerConfigError, startCodecServer } from '../../codec/codec-server';
import { TemporalKeyring } from '../../keyring/client';
import { readStackInfo } from '../../workers/dev/stack-file';
import { type Command, CommandFailedError, UsageError } from '../command';
import { commandConfig, commandEncryptionKeys, connectTemporal } from '../connect';
import { listenOptions, parsePort, stringListOption, stringOption } from '../parse-values';

/** Where the web UI of `temporal server start-dev` runs when no `idv dev` stack says otherwise. */
const DEFAULT_UI_ORIGIN = 'http://localhost:8233';

function uiOrigin(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${option} must be a URL such as ${DEFAULT_UI_ORIGIN}, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--${option} must be an http(s) URL, got '${value}'`);
  return url.origin;
}

function stackUiOrigin(temporalUiUrl: string | undefined): string | undefined {
  if (!temporalUiUrl) return undefined;
  try {
    return new URL(temporalUiUrl).origin;
  } catch {
    return undefined;
  }
}

/** `idv codec-server`: decodes payloads for the Temporal web UI and CLI; stops on SIGINT/SIGTERM. */
export const codecServerCommand: Command = {
  name: 'codec-server',
  summary:
    'Run a codec server: the Temporal web UI and CLI show payloads decrypted, personal data opened or marked redacted',
  stopsGracefully: true,
  usage: 'codec-server [--port N] [--host HOST] [--ui-origin URL]...',
  options: {
    ...listenOptions,
    'ui-origin': {
      type: 'string',
      multiple: true,
      valueName: 'URL',
      description: `web UI allowed to call (default: the idv dev stack's UI, else ${DEFAULT_UI_ORIGIN})`,
    },
  },
  async run({ values }, io) {
    const port = parsePort(stringOption(values, 'port'), 'port') ?? 0;
    const host = stringOption(values, 'host') ?? '127.0.0.1';
    const origins = stringListOption(values, 'ui-origin').map((value) => uiOrigin(value, 'ui-origin'));
    const token = io.env.IDV_CODEC_TOKEN;
    if (!token)
      throw new CommandFailedError(
        'IDV_CODEC_TOKEN is not set: the codec server needs a shared token, e.g. export IDV_CODEC_TOKEN=$(openssl rand -hex 32)',
      );
    const config = commandConfig(io.env);
    const stack = await readStackInfo(config.dataDir);
    const encryptionKeys = await commandEncryptionKeys(config, stack);
    const allowedOrigins =
      origins.length > 0 ? origins : [stackUiOrigin(stack?.temporalUiUrl) ?? DEFAULT_UI_ORIGIN];
    // The data keys are wrapped under the keyring's keys, which only Temporal holds.
    const temporal = await connectTemporal(io.env);
    const { store } = temporal;
    try {
      const server = await startCodecServer({
        encryptionKeys,
        store,
        keyring: new TemporalKeyring({ client: temporal.idv.client, taskQueue: temporal.idv.taskQueue }),
        token,
        allowedOrigins,
        port,
        host,
      }).catch((error: unknown) => {
        if (error instanceof CodecServerConfigError) throw new CommandFailedError(error.message);
        throw error;
      });
      const endpoint = server.endpoint(false);
      io.stderr.write(
        [
          `idv codec-server: listening on ${endpoint}, store: ${store.description} (Ctrl-C to stop)`,
          `  Temporal CLI: temporal workflow show --codec-endpoint ${endpoint} --codec-auth "Bearer $IDV_CODEC_TOKEN" …`,
          `  web UI (${allowedOrigins.join(', ')}): codec endpoint ${endpoint}/t/$IDV_CODEC_TOKEN`,
          `    e.g. temporal server start-dev --ui-codec-endpoint ${endpoint}/t/$IDV_CODEC_TOKEN`,
          '',
        ].join('\n'),
      );
      const signal = await io.stopRequested;
      io.stderr.write(`idv codec-server: ${signal} received, stopping\n`);
      await server.close();
      return 0;
    } finally {
      await temporal.close();
    }
  },
};
