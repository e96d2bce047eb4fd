import {
  MAX_PROCESS_MISSES,
  pinnedVersionId,
  resolveProcess,
  type ProcessQuestion,
  type ProcessVersionFacts,
} from './process-resolution';

const invocation = {
  skillId: 7,
  identifier: 'seo-process',
  subject: { table: 'pages' as const, id: 3, languageId: 1 },
  skillVersionId: 70,
  version: 1,
};
const pin = { ...invocation, configurationId: 1, misses: 0 };
const v1: ProcessVersionFacts = { id: 70, version: 1, state: 'APPROVED', name: 'SEO', body: 'Step one.' };
const v2: ProcessVersionFacts = { id: 71, version: 2, state: 'APPROVED', name: 'SEO', body: 'Step two.' };
const guidance = (v: ProcessVersionFacts) => ({
  identifier: 'seo-process',
  name: 'SEO',
  version: v.version,
  body: v.body,
  subject: invocation.subject,
});
const base: ProcessQuestion = {
  invocation: null,
  predecessorRunId: 'run-1',
  predecessor: { ownerId: 2, configurationId: 1, status: 'COMPLETED', processPin: pin },
  callerId: 2,
  callerIsAdmin: false,
  configurationId: 1,
  // the catalogue offers version 2 now; the process pinned version 1
  catalogueVersions: new Map([[7, 71]]),
  versions: new Map([
    [70, v1],
    [71, v2],
  ]),
};

describe('resolveProcess', () => {
  it('starts a process from an invocation with its version’s instructions, whatever the predecessor', () => {
    expect(resolveProcess({ ...base, invocation, predecessorRunId: null, predecessor: null })).toEqual({
      pin: { ...invocation, configurationId: 1, misses: 0 },
      dropped: null,
      guidance: guidance(v1),
    });
  });

  it('runs without a process when the turn names no predecessor, or the predecessor had none', () => {
    const none = { pin: null, dropped: null, guidance: null };
    expect(resolveProcess({ ...base, predecessorRunId: null, predecessor: null })).toEqual(none);
    expect(resolveProcess({ ...base, predecessor: { ...base.predecessor!, processPin: null } })).toEqual(
      none,
    );
  });

  it('passes the pin on from a completed predecessor, keeping the pinned version after a newer approval', () => {
    const before = { ...base.predecessor!, processPin: { ...pin, misses: 2 } };
    expect(resolveProcess({ ...base, predecessor: before })).toEqual({
      pin,
      dropped: null,
      guidance: guidance(v1),
    });
  });

  it('gives a pin written before versions the version approved now', () => {
    const { skillVersionId: _id, version: _v, ...legacy } = pin;
    const answer = resolveProcess({ ...base, predecessor: { ...base.predecessor!, processPin: legacy } });
    expect(answer.pin).toEqual({ ...pin, skillVersionId: 71, version: 2 });
    expect(answer.guidance?.body).toBe('Step two.');
    expect(pinnedVersionId(legacy)).toBeNull();
    expect(pinnedVersionId(pin)).toBe(70);
  });

  it.each([
    ['PREDECESSOR_GONE', { predecessor: null }],
    ['PREDECESSOR_GONE', { predecessor: { ...base.predecessor!, ownerId: 9 } }],
    ['CONFIGURATION_CHANGED', { configurationId: 2 }],
    ['DETACHED', { catalogueVersions: new Map<number, number>() }],
    ['VERSION_WITHDRAWN', { versions: new Map([[70, { ...v1, state: 'WITHDRAWN' }]]) }],
    ['VERSION_WITHDRAWN', { versions: new Map<number, ProcessVersionFacts>() }],
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
    expect(resolveProcess({ ...base, ...change })).toEqual({
      pin: null,
      dropped: { reason },
      guidance: null,
    });
  });

  it('drops an invocation whose version was withdrawn in the meantime', () => {
    const versions = new Map([[70, { ...v1, state: 'WITHDRAWN' }]]);
    expect(resolveProcess({ ...base, invocation, predecessor: null, versions }).dropped).toEqual({
      reason: 'VERSION_WITHDRAWN',
    });
  });

  it('lets an admin continue another user’s process', () => {
    const answer = resolveProcess({ ...base, callerId: 1, callerIsAdmin: true });
    expect(answer.pin).toEqual(pin);
  });

  it('counts a predecessor that did not complete as a miss, up to the limit', () => {
    const missed = resolveProcess({ ...base, predecessor: { ...base.predecessor!, status: 'FAILED' } });
    expect(missed.pin).toEqual({ ...pin, misses: 1 });
  });
});
