import { digestsEqual, turnDigest } from './digest';
import type { PendingCall } from './types';

const call = (args: Record<string, unknown>): PendingCall => ({
  callId: 'call_2_1',
  toolName: 'pages_update',
  writes: true,
  arguments: args,
  preview: ['seoTitle: "Old" -> "New"'],
});

describe('turnDigest', () => {
  it('is the same for the same calls whatever the key order', () => {
    const a = turnDigest({ kind: 'APPROVAL', calls: [call({ pageId: 1, languageId: 0, seoTitle: 'New' })] });
    const b = turnDigest({ kind: 'APPROVAL', calls: [call({ seoTitle: 'New', languageId: 0, pageId: 1 })] });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
  });

  it('changes when one argument changes', () => {
    const a = turnDigest({ kind: 'APPROVAL', calls: [call({ pageId: 1, seoTitle: 'New' })] });
    const b = turnDigest({ kind: 'APPROVAL', calls: [call({ pageId: 1, seoTitle: 'Newer' })] });
    expect(b).not.toBe(a);
  });

  it('changes when a preview changes', () => {
    const a = turnDigest({ kind: 'APPROVAL', calls: [call({ pageId: 1 })] });
    const b = turnDigest({ kind: 'APPROVAL', calls: [{ ...call({ pageId: 1 }), preview: ['x'] }] });
    expect(b).not.toBe(a);
  });

  it('covers the input tool name and schema for an input pause', () => {
    const calls = [{ ...call({ question: 'q' }), toolName: 'ask_user', writes: false, preview: [] }];
    const schema = { type: 'object', properties: { tone: { enum: ['a', 'b'] } } };
    const a = turnDigest({ kind: 'INPUT', calls, inputRequest: { toolName: 'ask_user', schema } });
    const b = turnDigest({
      kind: 'INPUT',
      calls,
      inputRequest: { toolName: 'ask_user', schema: { ...schema, required: ['tone'] } },
    });
    expect(a).not.toBe(b);
    expect(a).not.toBe(turnDigest({ kind: 'APPROVAL', calls }));
  });
});

describe('digestsEqual', () => {
  const d = turnDigest({ kind: 'APPROVAL', calls: [] });
  it('accepts the same digest and refuses others', () => {
    expect(digestsEqual(d, d)).toBe(true);
    expect(
      digestsEqual(
        d,
        d.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      ),
    ).toBe(false);
    expect(digestsEqual(d, d.slice(1))).toBe(false);
    expect(digestsEqual(d, '')).toBe(false);
    expect(digestsEqual(d, null)).toBe(false);
    expect(digestsEqual(d, undefined)).toBe(false);
  });
});
