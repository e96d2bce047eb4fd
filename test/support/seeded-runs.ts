import { seedRuns, type SeedRuns } from '../../bench/support/volume';
import { type SuiteApp, useTestApp } from './suite';

/**
 * useTestApp on an API-only app (WORKER_ENABLED=false: nothing takes the seeded runs), with runs
 * seeded into it in a beforeAll (of `timeout` ms), one seed after the other (bench/support/volume.ts).
 */
export function useSeededRuns(seeds: readonly SeedRuns[], timeout?: number): SuiteApp {
  const suite = useTestApp({ WORKER_ENABLED: 'false' });
  beforeAll(async () => {
    for (const seed of seeds) await seedRuns((sql, params) => suite.t.dataSource.query(sql, params), seed);
  }, timeout);
  return suite;
}
