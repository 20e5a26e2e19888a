/**
 * Runs a benchmark's `main` and ends the process with its outcome: the Temporal runtime keeps the
 * process alive once the work is done.
 */
export function runBench(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
