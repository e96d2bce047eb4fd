import type { Provider } from '../providers/provider';
import { ScriptedProvider, type ScriptedRound } from '../providers/scripted';
import { LeaseLostError } from '../runtime/errors';
import type { AgentPorts, PendingEffect, StepReceipt } from '../runtime/ports';
import type { Step, StepKind } from '../runtime/types';
import { createDefaultToolRegistry } from '../tools/builtins';
import type { ContentPort } from '../tools/content-port';
import type { ToolRegistry } from '../tools/registry';
import { InMemoryContent } from './in-memory-content';

/** Knobs of the fake ports. */
export interface FakePortOptions {
  readonly rounds?: readonly ScriptedRound[];
  readonly provider?: Provider;
  readonly content?: ContentPort;
  readonly tools?: ToolRegistry;
  /** Throw LeaseLostError when asked to record the n-th step (1-based) of this kind. */
  readonly loseLeaseAt?: { readonly kind: StepKind; readonly nth?: number };
  /** Answer true to the n-th cancel check (1-based) and every later one. */
  readonly stopAtCheck?: number;
  /** The budget check (absent: no caps). */
  readonly budgetReached?: AgentPorts['budgetReached'];
}

/** In-memory ports plus what they saw. */
export interface FakePorts {
  readonly ports: AgentPorts;
  /** Stored (filtered) steps in order. */
  readonly stored: Step[];
  /** Observed (unfiltered) steps in order. */
  readonly observed: Step[];
  /** setPendingEffect calls in order. */
  readonly effects: (PendingEffect | null)[];
  readonly deltas: string[];
  readonly stopChecks: () => number;
}

/** Fake ports for the runtime's unit tests (and the runs module's, where useful). */
export function fakePorts(options: FakePortOptions = {}): FakePorts {
  const stored: Step[] = [];
  const observed: Step[] = [];
  const effects: (PendingEffect | null)[] = [];
  const deltas: string[] = [];
  const seen = new Map<StepKind, number>();
  let checks = 0;
  const ports: AgentPorts = {
    provider: options.provider ?? new ScriptedProvider({ rounds: options.rounds ?? [] }),
    tools: options.tools ?? createDefaultToolRegistry(),
    content: options.content ?? new InMemoryContent([]),
    recordStep(step: Step): Promise<StepReceipt> {
      const nth = (seen.get(step.kind) ?? 0) + 1;
      seen.set(step.kind, nth);
      const lose = options.loseLeaseAt;
      if (lose && lose.kind === step.kind && (lose.nth ?? 1) === nth)
        return Promise.reject(new LeaseLostError());
      stored.push(step);
      return Promise.resolve({ sequence: stored.length });
    },
    shouldStop: () => {
      checks += 1;
      return options.stopAtCheck !== undefined && checks >= options.stopAtCheck;
    },
    setPendingEffect(effect) {
      effects.push(effect);
      return Promise.resolve();
    },
    ...(options.budgetReached ? { budgetReached: options.budgetReached } : {}),
    onStep: (step) => observed.push(step),
    onDelta: (d) => deltas.push(d),
    now: () => 0,
  };
  return { ports, stored, observed, effects, deltas, stopChecks: () => checks };
}
