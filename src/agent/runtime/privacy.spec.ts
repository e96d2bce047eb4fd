import { filterStepPayload, keepAnswer, REDACTED_STRING_CAP, storedAnswer } from './privacy';
import { maskSecrets } from './redact';
import type { PrivacyLevel, Step, StepKind } from './types';

const SENTINEL = 'SENTINEL-7f3a';

/** A step of each kind with the sentinel wherever content can be. */
function stepsWithSentinel(): Step[] {
  const call = { id: 'call_1_1', name: 'pages_update', arguments: { body: SENTINEL } };
  const make = (kind: StepKind, payload: Record<string, unknown>): Step => ({
    kind,
    round: 1,
    durationMs: 12,
    payload,
  });
  return [
    make('CONTEXT', {
      subject: { pageId: 1, languageId: 0 },
      systemPromptLength: 10,
      skills: ['tone-of-voice'],
      messages: [{ role: 'user', content: SENTINEL }],
    }),
    make('REQUEST', { callIndex: 1, messageCount: 2, messages: [{ role: 'system', content: SENTINEL }] }),
    make('LLM', {
      callIndex: 1,
      finishReason: 'tool_calls',
      usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 },
      content: SENTINEL,
      thinking: SENTINEL,
      raw: { text: SENTINEL },
      toolCalls: [call],
    }),
    make('TOOL', {
      callId: 'call_1_1',
      toolName: 'pages_read',
      isError: false,
      arguments: { query: SENTINEL },
      result: { body: SENTINEL },
      artifacts: [SENTINEL],
    }),
    make('TOOL_WRITE', {
      table: 'page_text',
      id: '1:0:0',
      callId: 'call_1_1',
      toolName: 'pages_update',
      extra: SENTINEL,
    }),
    make('APPROVAL', { approved: true, decidedBy: 7, turn: 1, digest: 'abc', note: SENTINEL }),
    make('INPUT', { submittedBy: 7, turn: 1, values: { tone: SENTINEL } }),
    make('DROPPED', { reason: 'DETACHED', message: SENTINEL }),
  ];
}

describe('filterStepPayload', () => {
  it.each<PrivacyLevel>(['NONE', 'METADATA'])('keeps no content of any step kind at %s', (level) => {
    for (const step of stepsWithSentinel()) {
      const stored = JSON.stringify(filterStepPayload(step, level));
      expect(stored).not.toContain(SENTINEL);
    }
  });

  it('keeps timings, tokens, the finish reason, sizes and names at METADATA', () => {
    const llm = stepsWithSentinel().find((s) => s.kind === 'LLM') as Step;
    expect(filterStepPayload(llm, 'METADATA')).toEqual({
      callIndex: 1,
      finishReason: 'tool_calls',
      usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 },
      contentLength: SENTINEL.length,
      thinkingLength: SENTINEL.length,
      rawSize: JSON.stringify({ text: SENTINEL }).length,
      toolCallsCount: 1,
      toolCallNames: ['pages_update'],
      contentRedacted: true,
    });
    const ctx = filterStepPayload(stepsWithSentinel()[0] as Step, 'METADATA');
    expect(ctx).toMatchObject({
      subject: { pageId: 1, languageId: 0 },
      skills: ['tone-of-voice'],
      messagesCount: 1,
    });
  });

  it('keeps APPROVAL / INPUT / TOOL_WRITE metadata at every level, and only that', () => {
    const steps = stepsWithSentinel();
    for (const level of ['NONE', 'METADATA', 'REDACTED', 'FULL'] as PrivacyLevel[]) {
      expect(filterStepPayload(steps[4] as Step, level)).toEqual({
        table: 'page_text',
        id: '1:0:0',
        callId: 'call_1_1',
        toolName: 'pages_update',
      });
      expect(filterStepPayload(steps[5] as Step, level)).toEqual({
        approved: true,
        decidedBy: 7,
        turn: 1,
        digest: 'abc',
      });
      expect(filterStepPayload(steps[6] as Step, level)).toEqual({ submittedBy: 7, turn: 1 });
    }
  });

  it('keeps strings but masks secrets at REDACTED', () => {
    const step: Step = {
      kind: 'TOOL',
      round: 1,
      durationMs: 0,
      payload: { result: { text: `mail bob@example.com with Bearer abc.def-123 ${SENTINEL}` } },
    };
    const out = filterStepPayload(step, 'REDACTED') as { result: { text: string } };
    expect(out.result.text).toBe(`mail [REDACTED_EMAIL] with Bearer [REDACTED] ${SENTINEL}`);
  });

  it('caps every string at 2,000 characters at REDACTED', () => {
    const step: Step = {
      kind: 'LLM',
      round: 1,
      durationMs: 0,
      payload: { content: 'x'.repeat(5000), list: ['y'.repeat(3000)] },
    };
    const out = filterStepPayload(step, 'REDACTED') as { content: string; list: string[] };
    expect(out.content.length).toBe(REDACTED_STRING_CAP);
    expect(out.content.endsWith('…[truncated]')).toBe(true);
    expect(out.list[0]?.length).toBe(REDACTED_STRING_CAP);
  });

  it('keeps everything verbatim at FULL', () => {
    const llm = stepsWithSentinel()[2] as Step;
    expect(filterStepPayload(llm, 'FULL')).toEqual(llm.payload);
  });
});

describe('maskSecrets', () => {
  it.each([
    ['token cs_AbCdEfGhIjKlMnOpQrStUvWx12345', 'token [REDACTED_TOKEN]'],
    ['key sk-proj-abcdefghijklmnop1234', 'key [REDACTED_TOKEN]'],
    ['Authorization: Bearer eyJhbGciOi.x', 'Authorization: Bearer [REDACTED]'],
    ['db postgres://app:s3cret@db.local:5432/x', 'db postgres://[REDACTED]@db.local:5432/x'],
    ['see https://user:pa55@example.com/path', 'see https://[REDACTED]@example.com/path'],
    ['write to carol.smith+x@mail.example.org now', 'write to [REDACTED_EMAIL] now'],
    ['api_key=abcdef123456 next', 'api_key=[REDACTED] next'],
    ['"password": "hunter22"', '"password": "[REDACTED]"'],
    ['github ghp_abcdefghijklmnopqrstuvwxyz0123', 'github [REDACTED_TOKEN]'],
  ])('masks %s', (input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    expect(maskSecrets('A sharper SEO title: http://example.com/a@b')).toBe(
      'A sharper SEO title: http://example.com/a@b',
    );
  });
});

describe('keepAnswer / storedAnswer', () => {
  it('keeps the answer at REDACTED and FULL, or when there was no decision', () => {
    expect(keepAnswer('FULL', true)).toBe(true);
    expect(keepAnswer('REDACTED', true)).toBe(true);
    expect(keepAnswer('METADATA', false)).toBe(true);
    expect(keepAnswer('NONE', false)).toBe(true);
    expect(keepAnswer('METADATA', true)).toBe(false);
    expect(keepAnswer('NONE', true)).toBe(false);
  });

  it('stores null when not kept and masks at REDACTED', () => {
    expect(storedAnswer('METADATA', true, 'x')).toBeNull();
    expect(storedAnswer('REDACTED', true, 'mail a@b.io')).toBe('mail [REDACTED_EMAIL]');
    expect(storedAnswer('FULL', true, 'mail a@b.io')).toBe('mail a@b.io');
  });
});
