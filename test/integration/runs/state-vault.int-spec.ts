import { Logger } from '@nestjs/common';
import { tmpdir } from 'node:os';
import { StateUnreadableError } from '../../../src/agent';
import type { AppConfig } from '../../../src/config/app-config';
import type { ConfigurationsService } from '../../../src/modules/configurations';
import type { PrincipalsService } from '../../../src/modules/auth';
import type { PagesService } from '../../../src/modules/content';
import type { RunExecutor } from '../../../src/modules/runs/application/run-executor';
import { StateVault } from '../../../src/modules/runs/application/state-vault';
import type { Checkpoint } from '../../../src/modules/runs/core/checkpoint';
import { RecordedDecisions } from '../../../src/modules/approvals';
import { QueuedRunPicker } from '../../../src/modules/worker';
import { QueuedRuns, UNREADABLE_CHECKPOINT_MESSAGE } from '../../../src/modules/runs';
import { useTestDatabase } from '../../support/test-database';
import { pausedState, queuedRun, rowOf, RunsKit, runsKit, settlerFor } from './runs-support';

/** Replaces one character of the ciphertext (the 4th part of `v1.iv.tag.body`) with another. */
function tamper(sealed: string): string {
  const parts = sealed.split('.');
  const body = parts[3]!;
  const at = Math.floor(body.length / 2);
  const flipped = body[at] === 'A' ? 'B' : 'A';
  parts[3] = body.slice(0, at) + flipped + body.slice(at + 1);
  return parts.join('.');
}

describe('encrypted run state on a real database', () => {
  const suite = useTestDatabase();
  let kit: RunsKit;
  const checkpoint: Checkpoint = { v: 1, kind: 'state', state: pausedState() };

  beforeAll(async () => {
    kit = await runsKit(suite.ds);
  });

  it('round-trips a checkpoint through run.checkpoint, stored only as ciphertext', async () => {
    const id = await queuedRun(kit, checkpoint);
    const stored = (await rowOf(suite.ds, id)).checkpoint as string;
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain('Improve the SEO title');
    const run = await kit.reads.findById(id);
    expect(kit.vault.open(id, run!.checkpoint)).toEqual(checkpoint);
  });

  it('detects a tampered ciphertext as StateUnreadableError', async () => {
    const id = await queuedRun(kit, checkpoint);
    const stored = (await rowOf(suite.ds, id)).checkpoint as string;
    await suite.ds.query('UPDATE run SET checkpoint = $2 WHERE id = $1', [id, tamper(stored)]);
    const run = await kit.reads.findById(id);
    expect(() => kit.vault.open(id, run!.checkpoint)).toThrow(StateUnreadableError);
    expect(() => kit.vault.open(id, run!.checkpoint)).toThrow(/failed authentication/);
  });

  it('refuses a checkpoint copied onto another run, or opened with another key', async () => {
    const a = await queuedRun(kit, checkpoint);
    const b = await queuedRun(kit, checkpoint);
    const sealedA = (await rowOf(suite.ds, a)).checkpoint as string;
    expect(() => kit.vault.open(b, sealedA)).toThrow(StateUnreadableError);
    const other = new StateVault({
      stateEncryptionKey: Buffer.alloc(32, 9).toString('base64'),
      dataDir: tmpdir(),
    } as AppConfig);
    expect(() => other.open(a, sealedA)).toThrow(StateUnreadableError);
    expect(() => kit.vault.open(a, null)).toThrow(StateUnreadableError);
  });

  it('a worker that claims a run with a tampered checkpoint fails it NOT_RETRYABLE and launches nothing', async () => {
    Logger.overrideLogger(false);
    await suite.ds.query(`UPDATE run SET status = 'CANCELLED' WHERE status = 'QUEUED'`);
    const id = await queuedRun(kit, { v: 1, kind: 'start', prompt: 'Go' });
    await suite.ds.query('UPDATE run SET checkpoint = $2 WHERE id = $1', [
      id,
      tamper((await rowOf(suite.ds, id)).checkpoint as string),
    ]);
    const launched: string[] = [];
    const published: unknown[] = [];
    const executor = {
      launch: (s: { run: { id: string } }) => launched.push(s.run.id),
      activeCount: () => 0,
    } as unknown as RunExecutor;
    const config = {
      workerConcurrency: 4,
      workerPrefetch: 0,
      runLeaseSeconds: 60,
      workerEnabled: false,
    } as AppConfig;
    const queued = new QueuedRuns(
      kit.claims,
      kit.vault,
      executor,
      settlerFor(kit, { publish: (_t: string, p: unknown) => Promise.resolve(void published.push(p)) }),
      // the claim reads these with it; a run that fails on its checkpoint needs no other read
      { joinedById: () => kit.joins.configuration } as unknown as ConfigurationsService,
      { joinedById: () => kit.joins.owner } as unknown as PrincipalsService,
      { joinedRunPageAccess: () => kit.joins.page } as unknown as PagesService,
      config,
    );
    const picker = new QueuedRunPicker(queued, executor, config, {
      pickUp: () => Promise.resolve(0),
    } as unknown as RecordedDecisions);
    await picker.pickOnce();
    expect(launched).toEqual([]);
    expect(await rowOf(suite.ds, id)).toMatchObject({
      status: 'FAILED',
      termination_reason: 'NOT_RETRYABLE',
      error_message: UNREADABLE_CHECKPOINT_MESSAGE,
      checkpoint: null,
      lease_token: null,
    });
    expect(published).toContainEqual({
      type: 'TERMINAL',
      runId: id,
      outcome: 'ERROR',
      error: UNREADABLE_CHECKPOINT_MESSAGE,
    });
  });
});
