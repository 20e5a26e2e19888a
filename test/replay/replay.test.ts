import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { Worker } from '@temporalio/worker';
import { harnessEnv, harnessValue } from '../harness/env';
import { encryptingDataConverter } from '../../codec/data-converter';
import { replayFixtureKeys } from './fixture-keys';
import { agentScenarios } from './agent-scenarios';
import { migrationScenarios } from './migration-scenarios';
import { historyFiles, scenarios } from './scenarios';

const directory = join(__dirname, 'histories');
/** A recorded file: the run's workflow ID (child IDs derive from it) and its history. */
const recordedSchema = z.object({
  workflowId: z.string().min(1),
  history: z.record(z.string(), z.unknown()),
});
const files = readdirSync(directory).filter((name) => name.endsWith('.json'));

// Recorded histories (npm run record:histories) replayed through today's workflow code: a
// change that would break running workflows fails here.
describe('replay of recorded histories', () => {
  it('has exactly the histories the scenarios declare (one per recorded run, by name)', () => {
    expect([...files].sort()).toEqual(
      historyFiles([...scenarios, ...agentScenarios, ...migrationScenarios]).sort(),
    );
  });

  it.each(files.map((file) => join(directory, file)))('replays %s without non-determinism', async (path) => {
    const recorded = recordedSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    const history = temporal.api.history.v1.History.fromObject(recorded.history);
    const results = Worker.runReplayHistories(
      {
        workflowBundle: { codePath: harnessValue(harnessEnv.workflowBundle) },
        dataConverter: encryptingDataConverter(replayFixtureKeys),
      },
      [{ workflowId: recorded.workflowId, history }],
    );
    let replayed = 0;
    for await (const result of results) {
      expect(result.error).toBeUndefined();
      replayed += 1;
    }
    expect(replayed).toBe(1);
  });
});
