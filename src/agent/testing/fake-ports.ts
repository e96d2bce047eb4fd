import type { Provider } from '../providers/provider';
import { ScriptedProvider, type ScriptedRound } from '../providers/scripted';
import { LeaseLostError } from '../runtime/errors';
import type { AgentPorts, PendingEffect, StepReceipt } from '../runtime/ports';
import type { Step, StepKind, SuspendedState } from '../runtime/types';
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
  /** The pending effect in order: each set (setPendingEffect), then null where it was cleared (completeEffect). */
  readonly effects: (PendingEffect | null)[];
  /** The checkpoints handed over with the clearing of an effect, in order. */
  readonly checkpoints: SuspendedState[];
  readonly deltas: string[];
  readonly stopChecks: () => number;
}

/** Fake ports for the runtime's unit tests (and the runs module's, where useful). */
export function fakePorts(options: FakePortOptions = {}): FakePorts {
  const stored: Step[] = [];
  const observed: Step[] = [];
  const effects: (PendingEffect | null)[] = [];
  const checkpoints: SuspendedState[] = [];
  const deltas: string[] = [];
  const seen = new Map<StepKind, number>();
  /** Counts the step by kind; true when it is the one `loseLeaseAt` names. */
  const losesLease = (step: Step): boolean => {
    const nth = (seen.get(step.kind) ?? 0) + 1;
    seen.set(step.kind, nth);
    const lose = options.loseLeaseAt;
    return lose !== undefined && lose.kind === step.kind && (lose.nth ?? 1) === nth;
  };
  let checks = 0;
  const ports: AgentPorts = {
    provider: options.provider ?? new ScriptedProvider({ rounds: options.rounds ?? [] }),
    tools: options.tools ?? createDefaultToolRegistry(),
    content: options.content ?? new InMemoryContent([]),
    recordStep(step: Step): Promise<StepReceipt> {
      if (losesLease(step)) return Promise.reject(new LeaseLostError());
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
    completeEffect(steps, checkpoint) {
      // why: as one statement would: a lost lease on any of the steps stores none of them.
      if (steps.map(losesLease).some(Boolean)) return Promise.reject(new LeaseLostError());
      effects.push(null);
      if (checkpoint) checkpoints.push(checkpoint);
      return Promise.resolve(steps.map((step) => ({ sequence: stored.push(step) })));
    },
    ...(options.budgetReached ? { budgetReached: options.budgetReached } : {}),
    onStep: (step) => observed.push(step),
    onDelta: (d) => deltas.push(d),
    now: () => 0,
  };
  return { ports, stored, observed, effects, checkpoints, deltas, stopChecks: () => checks };
}
