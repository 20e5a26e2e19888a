import { SampledCount } from '../../workers/receiver/operational-log';

describe('SampledCount', () => {
  it('says the first time and every 100th after, and counts every one', () => {
    const counted = new SampledCount();
    const said = [];
    for (let n = 1; n <= 250; n += 1) if (counted.add()) said.push(counted.count);
    expect(said).toEqual([1, 101, 201]);
    expect(counted.count).toBe(250);
  });
});
