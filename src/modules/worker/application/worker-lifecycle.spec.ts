import { hostname } from 'node:os';
import type { AppConfig } from '../../../config/app-config';
import type { EventBus } from '../../../platform/pubsub/event-bus';
import type { DecisionReconciler } from './decision-reconciler';
import type { QueuedRunPicker } from './queued-run-picker';
import type { ReaperService } from './reaper.service';
import type { WorkerHeartbeat } from './worker-heartbeat';
import type { RetentionSweep } from './retention-sweep';
import type { ExpirySweep } from './expiry-sweep';
import { WorkerLifecycle, type WorkerProcessKind } from './worker-lifecycle';
import type { WebhookDeliveryLoop } from './webhook-delivery-loop';
import type { WorkListener } from './work-listener';

/** A lifecycle over fakes that log what is called, in order. */
function setup(workerEnabled: boolean, kind: WorkerProcessKind | null = null, listening = false) {
  const log: string[] = [];
  const wakes: string[] = [];
  let busHandler: (() => void) | null = null;
  const part = (name: string) => ({
    start: (arg?: unknown) => {
      log.push(`${name}.start${typeof arg === 'string' ? `(${arg})` : ''}`);
      if (typeof arg === 'function') (arg as () => void)();
      return Promise.resolve();
    },
    stop: () => {
      log.push(`${name}.stop`);
      return Promise.resolve();
    },
    wake: () => wakes.push(name),
  });
  const bus = {
    subscribe: (topic: string, handler: () => void) => {
      log.push(`bus.subscribe(${topic})`);
      busHandler = handler;
      handler();
      return Promise.resolve(() => Promise.resolve(void log.push('bus.unsubscribe')));
    },
  };
  const lifecycle = new WorkerLifecycle(
    part('heartbeat') as unknown as WorkerHeartbeat,
    part('picker') as unknown as QueuedRunPicker,
    part('reaper') as unknown as ReaperService,
    part('retention') as unknown as RetentionSweep,
    part('expiry') as unknown as ExpirySweep,
    part('reconciler') as unknown as DecisionReconciler,
    { ...part('listener'), listening } as unknown as WorkListener,
    part('webhooks') as unknown as WebhookDeliveryLoop,
    bus as unknown as EventBus,
    { workerEnabled } as AppConfig,
    kind,
  );
  return { lifecycle, log, wakes, publish: () => busHandler?.() };
}

describe('WorkerLifecycle', () => {
  it('starts the heartbeat before anything claims, and wires both wake-ups to the picker', async () => {
    const { lifecycle, log, wakes } = setup(true, 'worker');
    expect(lifecycle.processName).toBe(`worker:${hostname()}:${process.pid}`);
    await lifecycle.onApplicationBootstrap();
    expect(log).toEqual([
      `heartbeat.start(worker:${hostname()}:${process.pid})`,
      'bus.subscribe(work.available)',
      'listener.start',
      'picker.start',
      'reaper.start',
      'retention.start',
      'webhooks.start',
      'expiry.start',
    ]);
    expect(wakes).toEqual(['picker', 'picker']);
  });

  it('takes work news from the bus only while LISTEN is not in effect, so one write wakes one pass', async () => {
    const listening = setup(true, 'worker', true);
    await listening.lifecycle.onApplicationBootstrap();
    listening.publish();
    // the listener's own wake at LISTEN only: the bus's (at subscribe and after) are the same news
    expect(listening.wakes).toEqual(['picker']);
    const down = setup(true, 'worker', false);
    await down.lifecycle.onApplicationBootstrap();
    down.publish();
    expect(down.wakes).toEqual(['picker', 'picker', 'picker']);
  });

  it('stops claiming before it deletes the heartbeat', async () => {
    const { lifecycle, log } = setup(true);
    await lifecycle.onApplicationBootstrap();
    log.length = 0;
    await lifecycle.beforeApplicationShutdown();
    await new Promise((r) => setImmediate(r));
    expect(log.indexOf('heartbeat.stop')).toBeGreaterThan(log.indexOf('picker.stop'));
    expect(log.indexOf('heartbeat.stop')).toBeGreaterThan(log.indexOf('reaper.stop'));
    expect(log).toContain('listener.stop');
    expect(log.indexOf('heartbeat.stop')).toBeGreaterThan(log.indexOf('webhooks.stop'));
    expect(log).toContain('bus.unsubscribe');
  });

  it('names an in-process worker api:<host>:<pid>', () => {
    expect(setup(true).lifecycle.processName).toBe(`api:${hostname()}:${process.pid}`);
  });

  it('with WORKER_ENABLED=false runs only the reconcile and the expiry sweep: no heartbeat, no pickup, no reaper', async () => {
    const { lifecycle, log } = setup(false);
    await lifecycle.onApplicationBootstrap();
    expect(log).toEqual(['reconciler.start', 'expiry.start']);
  });
});
