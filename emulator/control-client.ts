import { type Dispatcher, request } from 'undici';

/** A call of the emulator's control API (`/_emulator`); a 4xx/5xx throws, so a broken setup is never measured or asserted on. */
export type EmulatorControl = (
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
) => Promise<Record<string, unknown>>;

/** Calls of the control API at `controlUrl` (tests, benchmarks). */
export function emulatorControl(controlUrl: string): EmulatorControl {
  return async (method, path, body) => {
    const response = await request(`${controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    if (response.statusCode >= 400)
      throw new Error(`control ${method} ${path}: ${response.statusCode} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
}
