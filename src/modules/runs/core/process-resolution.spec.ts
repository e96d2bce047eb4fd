import { MAX_PROCESS_MISSES, resolveProcess, type ProcessQuestion } from './process-resolution';

const invocation = {
  skillId: 7,
  identifier: 'seo-process',
  subject: { table: 'pages' as const, id: 3, languageId: 1 },
};
const pin = { ...invocation, configurationId: 1, misses: 0 };
const base: ProcessQuestion = {
  invocation: null,
  predecessorRunId: 'run-1',
  predecessor: { ownerId: 2, configurationId: 1, status: 'COMPLETED', processPin: pin },
  callerId: 2,
  callerIsAdmin: false,
  configurationId: 1,
  catalogueSkillIds: new Set([7]),
};

describe('resolveProcess', () => {
  it('starts a process from an invocation, whatever the predecessor', () => {
    expect(resolveProcess({ ...base, invocation, predecessorRunId: null, predecessor: null })).toEqual({
      pin: { ...invocation, configurationId: 1, misses: 0 },
      dropped: null,
    });
  });

  it('runs without a process when the turn names no predecessor, or the predecessor had none', () => {
    expect(resolveProcess({ ...base, predecessorRunId: null, predecessor: null })).toEqual({
      pin: null,
      dropped: null,
    });
    expect(resolveProcess({ ...base, predecessor: { ...base.predecessor!, processPin: null } })).toEqual({
      pin: null,
      dropped: null,
    });
  });

  it('passes the pin on from a completed predecessor, resetting the misses', () => {
    const before = { ...base.predecessor!, processPin: { ...pin, misses: 2 } };
    expect(resolveProcess({ ...base, predecessor: before })).toEqual({ pin, dropped: null });
  });

  it.each([
    ['PREDECESSOR_GONE', { predecessor: null }],
    ['PREDECESSOR_GONE', { predecessor: { ...base.predecessor!, ownerId: 9 } }],
    ['CONFIGURATION_CHANGED', { configurationId: 2 }],
    ['DETACHED', { catalogueSkillIds: new Set<number>() }],
    [
      'REFUSED_TOO_OFTEN',
      {
        predecessor: {
          ...base.predecessor!,
          status: 'CANCELLED',
          processPin: { ...pin, misses: MAX_PROCESS_MISSES - 1 },
        },
      },
    ],
  ] as const)('drops the process: %s', (reason, change) => {
    expect(resolveProcess({ ...base, ...change })).toEqual({ pin: null, dropped: { reason } });
  });

  it('lets an admin continue another user’s process', () => {
    const answer = resolveProcess({ ...base, callerId: 1, callerIsAdmin: true });
    expect(answer.pin).toEqual(pin);
  });

  it('counts a predecessor that did not complete as a miss, up to the limit', () => {
    const missed = resolveProcess({ ...base, predecessor: { ...base.predecessor!, status: 'FAILED' } });
    expect(missed).toEqual({ pin: { ...pin, misses: 1 }, dropped: null });
  });
});
