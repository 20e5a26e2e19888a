import { Runtime } from '@temporalio/worker';
import { runtimeOptions } from '../../workers/logging';

// Fault-injection tests fail activities on purpose; IDV_TEST_VERBOSE=1 shows those lines too.
const expectedNoise =
  process.env.IDV_TEST_VERBOSE === '1' ? [] : ['No activities registered', 'Activity failed'];

// Worker start/stop lines at INFO would drown jest's output; warnings and errors still show.
try {
  Runtime.install(runtimeOptions('WARN', expectedNoise));
} catch {
  // Already installed in this process by an earlier test file.
}
