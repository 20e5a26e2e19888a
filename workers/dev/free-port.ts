import { createServer } from 'node:net';

/** Asks the kernel for a free TCP port on the loopback interface. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Thrown when a port asked for is in use (by another stack, most likely). */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
  constructor(
    readonly port: number,
    host: string,
    option: string,
  ) {
    super(
      `port ${port} on ${host} is taken (another idv dev?): choose another with ${option}, or 0 for a free one`,
    );
  }
}

/**
 * Throws {@link PortTakenError} naming `option` when `port` cannot be bound on `host`: a server
 * started there would fail, or a health check would find the other one and take it for ours.
 */
export async function assertPortFree(port: number, host: string, option: string): Promise<void> {
  const taken = await new Promise<boolean>((resolveTaken, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolveTaken(true) : reject(error),
    );
    server.listen(port, host, () => server.close(() => resolveTaken(false)));
  });
  if (taken) throw new PortTakenError(port, host, option);
}
