import { DecisionFacts, earlyChecks, runChecks } from './decision-checks';

const OWNER = 1;
const OTHER = 2;

/** Facts that pass every check: an approver (not the initiator) on a plain waiting run. */
function passing(overrides: Partial<DecisionFacts> = {}): DecisionFacts {
  return {
    kind: 'APPROVE',
    callerId: OTHER,
    mayRead: true,
    mayDecide: true,
    surface: 'api',
    run: {
      ownerId: OWNER,
      status: 'WAITING_FOR_APPROVAL',
      hasState: true,
      isProcessRun: false,
      claimedOnCallersTurn: false,
      expired: false,
    },
    configuration: { deleted: false, isActive: true, requireSecondApprover: false },
    ...overrides,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
type Facts = Mutable<DecisionFacts>;

const clone = (f: DecisionFacts): Facts => structuredClone(f);

/**
 * Checks 1-8 of docs/decisions.md, each with what makes it apply (and nothing else that
 * an earlier check looks at, unless that earlier check is overridden by a later trigger).
 */
const CHECKS: ReadonlyArray<{ n: number; code: string; trigger: (f: Facts) => void }> = [
  {
    n: 1,
    code: 'NOT_FOUND',
    trigger: (f) => {
      f.mayRead = false;
      f.mayDecide = false;
    },
  },
  {
    n: 2,
    code: 'FORBIDDEN',
    trigger: (f) => {
      f.mayRead = true;
      f.mayDecide = false;
    },
  },
  {
    n: 3,
    code: 'RUN_NOT_WAITING',
    trigger: (f) => {
      f.run.status = 'COMPLETED';
    },
  },
  {
    n: 4,
    code: 'PROCESS_RUN_DECIDED_IN_CHAT',
    trigger: (f) => {
      f.run.isProcessRun = true;
      f.surface = 'api';
    },
  },
  {
    n: 5,
    code: 'CONFIGURATION_GONE',
    trigger: (f) => {
      f.configuration.deleted = true;
    },
  },
  {
    n: 6,
    code: 'CONFIGURATION_INACTIVE',
    trigger: (f) => {
      f.configuration.isActive = false;
    },
  },
  {
    n: 7,
    code: 'PROCESS_STOPPED_SECOND_APPROVER',
    trigger: (f) => {
      // the initiator, in the chat: check 4 lets a process run through
      f.run.isProcessRun = true;
      f.callerId = OWNER;
      f.surface = 'chat';
      f.configuration.requireSecondApprover = true;
    },
  },
  {
    n: 8,
    code: 'SELF_APPROVAL_DENIED',
    trigger: (f) => {
      f.callerId = OWNER;
      f.configuration.requireSecondApprover = true;
    },
  },
];

describe('earlyChecks (checks 1-8 of docs/decisions.md)', () => {
  it('passes a plain approval by a second person', () => {
    expect(earlyChecks(passing())).toBeNull();
  });

  it.each(CHECKS.map((c) => [c.n, c.code, c] as const))('check %i alone refuses with %s', (n, code, c) => {
    const f = clone(passing());
    c.trigger(f);
    const verdict = earlyChecks(f);
    expect(verdict?.refusal.code).toBe(code);
    expect(verdict?.failRun).toBe(n === 7);
  });

  const pairs = CHECKS.flatMap((first) =>
    CHECKS.filter((later) => later.n > first.n).map((later) => [first.n, later.n, first, later] as const),
  );

  it.each(pairs)('check %i wins over check %i', (_n, _m, first, later) => {
    const f = clone(passing());
    later.trigger(f);
    first.trigger(f);
    const verdict = earlyChecks(f);
    expect(verdict?.refusal.code).toBe(first.code);
    // why: only check 7 fails the run; a refusal that wins over it must leave the run alone.
    expect(verdict?.failRun).toBe(first.n === 7);
  });

  it('with every check applying at once, peels them off in order 1..8', () => {
    const f = clone(passing());
    for (const c of [...CHECKS].reverse()) c.trigger(f);
    // every trigger applied; check 4 needs the API surface again, check 7 the chat
    f.mayRead = false;
    f.mayDecide = false;
    f.surface = 'api';
    const fixes: Array<[string, (f: Facts) => void]> = [
      ['NOT_FOUND', (x) => (x.mayRead = true)],
      ['FORBIDDEN', (x) => (x.mayDecide = true)],
      ['RUN_NOT_WAITING', (x) => (x.run.status = 'WAITING_FOR_APPROVAL')],
      ['PROCESS_RUN_DECIDED_IN_CHAT', (x) => (x.surface = 'chat')],
      ['CONFIGURATION_GONE', (x) => (x.configuration.deleted = false)],
      ['CONFIGURATION_INACTIVE', (x) => (x.configuration.isActive = true)],
      ['PROCESS_STOPPED_SECOND_APPROVER', (x) => (x.run.isProcessRun = false)],
      ['SELF_APPROVAL_DENIED', (x) => (x.callerId = OTHER)],
    ];
    const seen: string[] = [];
    for (const [, fix] of fixes) {
      seen.push(earlyChecks(f)?.refusal.code ?? 'PASS');
      fix(f);
    }
    seen.push(earlyChecks(f)?.refusal.code ?? 'PASS');
    expect(seen).toEqual([...fixes.map(([code]) => code), 'PASS']);
  });

  describe('RUN_NOT_WAITING (check 3)', () => {
    it.each([
      ['APPROVE', 'WAITING_FOR_INPUT'],
      ['DENY', 'WAITING_FOR_INPUT'],
      ['INPUT', 'WAITING_FOR_APPROVAL'],
      ['APPROVE', 'RUNNING'],
      ['APPROVE', 'DECISION_RECORDED'],
      ['INPUT', 'COMPLETED'],
    ] as const)('%s on a run %s', (kind, status) => {
      const verdict = earlyChecks(passing({ kind, run: { ...passing().run, status } }));
      expect(verdict?.refusal.code).toBe('RUN_NOT_WAITING');
      expect(verdict?.refusal.details).toEqual({ status });
    });

    it('a waiting run without its state', () => {
      const verdict = earlyChecks(passing({ run: { ...passing().run, hasState: false } }));
      expect(verdict?.refusal.code).toBe('RUN_NOT_WAITING');
    });

    it.each(['RUNNING', 'DECISION_RECORDED'])(
      'ALREADY_RESUMING instead where another decision just claimed the caller’s turn (%s)',
      (status) => {
        const run = { ...passing().run, status, claimedOnCallersTurn: true };
        for (const kind of ['APPROVE', 'DENY', 'INPUT'] as const) {
          expect(earlyChecks(passing({ kind, run }))?.refusal.code).toBe('ALREADY_RESUMING');
        }
        // checks 1 and 2 still come first: no hint to a caller who may not know the run
        const hidden = earlyChecks(passing({ mayRead: false, mayDecide: false, run }));
        expect(hidden?.refusal.code).toBe('NOT_FOUND');
      },
    );

    it('APPROVAL_EXPIRED after the deadline, for approvals and denials; after checks 1-3', () => {
      const run = { ...passing().run, expired: true };
      for (const kind of ['APPROVE', 'DENY'] as const) {
        expect(earlyChecks(passing({ kind, run }))?.refusal.code).toBe('APPROVAL_EXPIRED');
      }
      expect(earlyChecks(passing({ mayDecide: false, run }))?.refusal.code).toBe('FORBIDDEN');
      const settled = { ...run, status: 'FAILED' };
      expect(earlyChecks(passing({ run: settled }))?.refusal.code).toBe('RUN_NOT_WAITING');
      const process = { ...run, isProcessRun: true };
      expect(earlyChecks(passing({ run: process }))?.refusal.code).toBe('APPROVAL_EXPIRED');
    });

    it('input on an input pause passes', () => {
      expect(
        earlyChecks(passing({ kind: 'INPUT', run: { ...passing().run, status: 'WAITING_FOR_INPUT' } })),
      ).toBeNull();
    });
  });

  describe('process runs (checks 4 and 7)', () => {
    const processRun = { ...passing().run, isProcessRun: true };
    it('the initiator on the API surface: PROCESS_RUN_DECIDED_IN_CHAT', () => {
      const verdict = earlyChecks(passing({ callerId: OWNER, run: processRun }));
      expect(verdict?.refusal.code).toBe('PROCESS_RUN_DECIDED_IN_CHAT');
    });
    it('someone else in the chat: PROCESS_RUN_DECIDED_IN_CHAT', () => {
      const verdict = earlyChecks(passing({ surface: 'chat', run: processRun }));
      expect(verdict?.refusal.code).toBe('PROCESS_RUN_DECIDED_IN_CHAT');
    });
    it('the initiator in the chat passes (without four-eyes)', () => {
      expect(earlyChecks(passing({ callerId: OWNER, surface: 'chat', run: processRun }))).toBeNull();
    });
    it.each(['APPROVE', 'DENY'] as const)('four-eyes stops it for %s too, failing the run', (kind) => {
      const verdict = earlyChecks(
        passing({
          kind,
          callerId: OWNER,
          surface: 'chat',
          run: processRun,
          configuration: { deleted: false, isActive: true, requireSecondApprover: true },
        }),
      );
      expect(verdict).toMatchObject({ failRun: true });
      expect(verdict?.refusal.code).toBe('PROCESS_STOPPED_SECOND_APPROVER');
    });
  });

  describe('four-eyes (check 8)', () => {
    const fourEyes = { deleted: false, isActive: true, requireSecondApprover: true };
    it('the initiator may deny', () => {
      expect(earlyChecks(passing({ kind: 'DENY', callerId: OWNER, configuration: fourEyes }))).toBeNull();
    });
    it('input submissions have no four-eyes rule', () => {
      const run = { ...passing().run, status: 'WAITING_FOR_INPUT' };
      expect(
        earlyChecks(passing({ kind: 'INPUT', callerId: OWNER, run, configuration: fourEyes })),
      ).toBeNull();
    });
    it('a second person may approve', () => {
      expect(earlyChecks(passing({ configuration: fourEyes }))).toBeNull();
    });
  });

  it('an inactive configuration refuses denials too (they call the model again)', () => {
    const configuration = { deleted: false, isActive: false, requireSecondApprover: false };
    expect(earlyChecks(passing({ kind: 'DENY', configuration }))?.refusal.code).toBe(
      'CONFIGURATION_INACTIVE',
    );
  });

  it('FORBIDDEN is for a reader who may not decide; a decider who may not read passes', () => {
    expect(earlyChecks(passing({ mayRead: true, mayDecide: false }))?.refusal.code).toBe('FORBIDDEN');
    expect(earlyChecks(passing({ mayRead: false, mayDecide: true }))).toBeNull();
  });
});

describe('runChecks (checks 1-4, before the configuration is read)', () => {
  const withoutConfiguration = (f: DecisionFacts) => {
    const { configuration: _c, ...rest } = f;
    return rest;
  };

  it.each(CHECKS.map((c) => [c.n, c.code, c] as const))(
    'check %i (%s): refused here exactly where it needs no configuration',
    (n, code, c) => {
      const f = clone(passing());
      c.trigger(f);
      const verdict = runChecks(withoutConfiguration(f));
      if (n <= 4) expect(verdict?.refusal.code).toBe(code);
      else expect(verdict).toBeNull();
    },
  );

  it('answers what earlyChecks answers whenever it refuses, whatever the configuration says', () => {
    for (const first of CHECKS.filter((c) => c.n <= 4)) {
      for (const later of CHECKS.filter((c) => c.n > 4)) {
        const f = clone(passing());
        later.trigger(f);
        first.trigger(f);
        expect(runChecks(withoutConfiguration(f))?.refusal.code).toBe(earlyChecks(f)?.refusal.code);
      }
    }
  });
});
