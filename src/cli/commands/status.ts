import type { AppConfig } from '../../config/app-config';
import { WorkerStatusService, type WorkerStatus } from '../../modules/worker';
import type { CliDatabase } from '../database';
import { EXIT_FAILED, EXIT_OK } from '../failure';

/** What a command prints, and the exit code the CLI ends with. */
export interface CommandOutcome {
  readonly lines: readonly string[];
  readonly exitCode: number;
}

/** The status as text: a verdict line (with the reasons when unhealthy) and one figure a line. */
export function formatStatus(s: WorkerStatus, where: string, embedded: boolean): string[] {
  const verdict = s.healthy ? 'healthy' : `UNHEALTHY (${s.problems.join('; ')})`;
  const lines = [
    `Workers: ${verdict}`,
    `  live workers        ${s.liveWorkers}`,
    `  queued runs         ${s.queued}`,
    `  recorded decisions  ${s.decisionsRecorded}`,
    `  expired leases      ${s.expiredLeases}`,
    `  oldest wait         ${s.oldestWaitSeconds === null ? 'none waiting' : `${s.oldestWaitSeconds} s`}`,
    `Database: ${where}`,
  ];
  if (embedded && s.liveWorkers === 0) {
    lines.push(
      'The embedded mode runs its worker inside the server, and no server holds DATA_DIR now',
      '(this command could not open it otherwise): start the server, then ask the workerStatus query.',
    );
  }
  return lines;
}

/**
 * `status`: the worker figures from the database, as the `workerStatus` query gives them;
 * exit code 1 when unhealthy, so it can serve as a health probe or a cron check.
 */
export async function workerStatus(
  db: CliDatabase,
  config: AppConfig,
  json: boolean,
): Promise<CommandOutcome> {
  const service = WorkerStatusService.over(db.dataSource, config);
  const s = await service.read();
  const lines = json ? [JSON.stringify(s)] : formatStatus(s, db.where, db.embedded);
  return { lines, exitCode: s.healthy ? EXIT_OK : EXIT_FAILED };
}
