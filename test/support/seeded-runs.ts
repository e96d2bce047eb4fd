import { seedRuns, type SeedRuns } from '../../bench/support/volume';
import { bootTestApp, type TestApp } from './test-app';

/**
 * Boots an API-only app (WORKER_ENABLED=false: nothing takes the seeded runs) and seeds runs
 * into it, one seed after the other (bench/support/volume.ts).
 */
export async function bootWithSeededRuns(...seeds: SeedRuns[]): Promise<TestApp> {
  const t = await bootTestApp({ WORKER_ENABLED: 'false' });
  try {
    for (const seed of seeds) await seedRuns((sql, params) => t.dataSource.query(sql, params), seed);
  } catch (e) {
    await t.close();
    throw e;
  }
  return t;
}
