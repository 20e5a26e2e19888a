import { DefaultLogger, type LogEntry, Runtime } from '@temporalio/worker';

// Fault-injection tests fail activities on purpose; IDV_TEST_VERBOSE=1 shows those lines too.
const expectedNoise =
  process.env.IDV_TEST_VERBOSE === '1' ? [] : ['No activities registered', 'Activity failed'];

function logUnlessExpected(entry: LogEntry): void {
  if (expectedNoise.some((text) => entry.message.startsWith(text))) return;
  const meta = entry.meta && Object.keys(entry.meta).length > 0 ? entry.meta : '';
  console.error(`[${entry.level}] ${entry.message}`, meta);
}

// Worker start/stop lines at INFO would drown jest's output; warnings and errors still show.
try {
  Runtime.install({ logger: new DefaultLogger('WARN', logUnlessExpected) });
} catch {
  // Already installed in this process by an earlier test file.
}
