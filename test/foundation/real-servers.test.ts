import { greet } from '../fixtures/foundation-activities';
import { greetThroughActivity, sleepThenReport } from '../fixtures/foundation-workflows';
import { withTimeSkipping } from '../harness/time-skipping';
import { uniqueTaskQueue, withWorker } from '../harness/worker';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('the test harness', () => {
  it('runs an activity in a real worker on the dev server', async () => {
    const greeting = await withWorker({ activities: { greet } }, ({ client, taskQueue }) =>
      client.workflow.execute(greetThroughActivity, {
        taskQueue,
        workflowId: uniqueTaskQueue('greet'),
        args: ['Ada'],
      }),
    );
    expect(greeting).toBe(`Hello, Ada! (pid ${process.pid})`);
  });

  it('sleeps a whole day on the time-skipping server', async () => {
    const report = await withTimeSkipping({}, ({ client, taskQueue }) =>
      client.workflow.execute(sleepThenReport, {
        taskQueue,
        workflowId: uniqueTaskQueue('sleep'),
        args: ['1 day'],
      }),
    );
    expect(report.wokeAt - report.startedAt).toBeGreaterThanOrEqual(DAY_MS);
  });

  it('registers the custom search attributes on the dev server', async () => {
    const names = await withWorker({}, async ({ client }) => {
      const response = await client.connection.operatorService.listSearchAttributes({
        namespace: 'default',
      });
      return Object.keys(response.customAttributes ?? {});
    });
    expect(names).toEqual(
      expect.arrayContaining(['IdvSessionId', 'IdvProfileId', 'IdvProvider', 'IdvStatus', 'IdvSummary']),
    );
  });
});
