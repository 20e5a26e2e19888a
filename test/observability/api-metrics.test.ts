import { type MetricCounter, type MetricMeter, noopMetricMeter } from '@temporalio/common';
import { apiCallMetrics } from '../../workers/telemetry/api-metrics';

/** A meter whose counters record each `add` (the SDK's meter interface, without its core). */
function recordingMeter(): { meter: MetricMeter; adds: Array<{ value: number; tags: unknown }> } {
  const adds: Array<{ value: number; tags: unknown }> = [];
  const meter = Object.create(noopMetricMeter) as MetricMeter;
  meter.createCounter = (name, unit, description): MetricCounter => {
    const counter = Object.create(noopMetricMeter.createCounter(name, unit, description)) as MetricCounter;
    counter.add = (value, tags) => void adds.push({ value, tags });
    return counter;
  };
  return { meter, adds };
}

describe('idv_api_calls', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('goes to the meter once a second per operation and status, with every call counted', () => {
    const { meter, adds } = recordingMeter();
    const onCall = apiCallMetrics(meter);
    for (let i = 0; i < 50; i += 1) onCall({ operation: 'GetSession', status: 200 });
    onCall({ operation: 'GetSession', status: 'timeout' });
    onCall({ operation: 'CreateDirectProviderSession', status: 200 });
    expect(adds).toEqual([]);
    jest.advanceTimersByTime(1_000);
    expect(adds).toEqual([
      { value: 50, tags: { operation: 'GetSession', status: '200' } },
      { value: 1, tags: { operation: 'GetSession', status: 'timeout' } },
      { value: 1, tags: { operation: 'CreateDirectProviderSession', status: '200' } },
    ]);
    // Counted afresh after a flush; no timer is left while nothing was counted.
    onCall({ operation: 'GetSession', status: 200 });
    jest.advanceTimersByTime(1_000);
    expect(adds.at(-1)).toEqual({ value: 1, tags: { operation: 'GetSession', status: '200' } });
    expect(adds).toHaveLength(4);
    expect(jest.getTimerCount()).toBe(0);
  });
});
