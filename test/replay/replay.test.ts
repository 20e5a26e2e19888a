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
import { recordedReleases, releasesDirectory } from './releases';
import { packageVersion } from '../../workers/package-root';

/** A recorded file: the run's workflow ID (child IDs derive from it) and its history. */
const recordedSchema = z.object({
  workflowId: z.string().min(1),
  history: z.record(z.string(), z.unknown()),
});
const releases = recordedReleases();
const filesOf = (release: string) =>
  readdirSync(join(releasesDirectory, release)).filter((name) => name.endsWith('.json'));
const recorded = releases.flatMap((release) =>
  filesOf(release).map((file) => [`${release}/${file}`, join(releasesDirectory, release, file)] as const),
);

// Every release's recorded histories (npm run record:histories, once per release, never again)
// replayed through today's workflow code: a change that would break work a release left running
// (an AUTO_UPGRADE workflow moving to this build, a query on any) fails here.
describe('replay of recorded histories', () => {
  it('has, for this version, exactly the histories the scenarios declare', () => {
    expect(releases).toContain(packageVersion());
    expect(filesOf(packageVersion()).sort()).toEqual(
      historyFiles([...scenarios, ...agentScenarios, ...migrationScenarios]).sort(),
    );
  });

  it.each(recorded)('replays %s without non-determinism', async (_name, path) => {
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
