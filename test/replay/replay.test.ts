import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { harnessEnv, harnessValue } from '../harness/env';

const directory = join(__dirname, 'histories');
const files = readdirSync(directory).filter((name) => name.endsWith('.json'));

// Recorded histories (npm run record:histories) replayed through today's workflow code: a
// change that would break running workflows fails here.
describe('replay of recorded histories', () => {
  it('has a recorded history for every scenario', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const history = temporal.api.history.v1.History.fromObject(
      JSON.parse(readFileSync(join(directory, file), 'utf8')),
    );
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) } },
      [{ workflowId: file, history }],
    );
    for await (const result of results) {
      expect(result.error).toBeUndefined();
    }
  });
});
