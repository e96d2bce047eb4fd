import { createDefaultToolRegistry } from '../tools/builtins';
import { classifyRound, type RoundPlan } from './classify';
import type { ToolCall } from './types';

const tools = createDefaultToolRegistry().select();
const subject = { pageId: 1, languageId: 0 };
const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({
  id,
  name,
  arguments: args,
});
const read = call('r1', 'pages_read');
const search = call('r2', 'pages_search', { query: 'home' });
const write = call('w1', 'pages_update', { seoTitle: 'New' });
const write2 = call('w2', 'pages_update', { title: 'Other' });
const ask = call('q1', 'ask_user', {
  question: 'Tone?',
  schema: { type: 'object', properties: { tone: { type: 'string', enum: ['formal', 'casual'] } } },
});
const unknown = call('u1', 'delete_everything', { all: true });

const ids = (calls: readonly ToolCall[]) => calls.map((c) => c.id);
const plan = (calls: ToolCall[], processRun = false): RoundPlan =>
  classifyRound(calls, tools, { processRun, subject });

describe('classifyRound (the whole round before any call executes)', () => {
  it('executes a round of reads', () => {
    expect(plan([read, search])).toEqual({ kind: 'execute', calls: [read, search] });
  });

  it('suspends for approval with ALL calls pending when one write is among reads', () => {
    const p = plan([read, write, search]);
    expect(p.kind).toBe('approval');
    if (p.kind !== 'approval') return;
    expect(ids(p.pending)).toEqual(['r1', 'w1', 'r2']);
    expect(p.runFirst).toEqual([]);
    expect(p.refused).toEqual([]);
  });

  it('suspends for input on an input tool call, with every call pending', () => {
    const p = plan([read, ask]);
    expect(p.kind).toBe('input');
    if (p.kind !== 'input') return;
    expect(p.inputCall.id).toBe('q1');
    expect(ids(p.pending)).toEqual(['r1', 'q1']);
  });

  it('treats an unknown tool name as a write (approval)', () => {
    const p = plan([read, unknown]);
    expect(p.kind).toBe('approval');
    if (p.kind === 'approval') expect(ids(p.pending)).toEqual(['r1', 'u1']);
  });

  it('prefers approval over input in the same round', () => {
    expect(plan([ask, write]).kind).toBe('approval');
  });

  it('does not pause on an input call whose schema does not compile (it gets its error result)', () => {
    const bad = call('q2', 'ask_user', {
      question: 'x',
      schema: { type: 'object', properties: { a: { type: 'nope' } } },
    });
    expect(plan([bad]).kind).toBe('execute');
  });

  it('keeps ONE approval-bound call pending in a process run: the first write', () => {
    const p = plan([read, unknown, write, write2, ask], true);
    expect(p.kind).toBe('approval');
    if (p.kind !== 'approval') return;
    expect(ids(p.pending)).toEqual(['w1']);
    expect(ids(p.runFirst)).toEqual(['r1']);
    expect(p.refused.map((r) => r.call.id)).toEqual(['u1', 'w2', 'q1']);
    expect(p.refused[0]?.error).toMatch(/one change per turn/);
  });

  it('keeps the first approval-bound call pending in a process run without a known write', () => {
    const p = plan([unknown, call('u2', 'other_unknown'), read], true);
    if (p.kind !== 'approval') throw new Error('expected approval');
    expect(ids(p.pending)).toEqual(['u1']);
    expect(p.refused.map((r) => r.call.id)).toEqual(['u2']);
    expect(ids(p.runFirst)).toEqual(['r1']);
  });

  it('treats a tool the configuration did not enable as unknown', () => {
    const onlyRead = createDefaultToolRegistry().select(['pages_read']);
    expect(classifyRound([search], onlyRead, { processRun: false, subject }).kind).toBe('approval');
  });
});
