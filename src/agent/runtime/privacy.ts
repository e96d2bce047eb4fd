import { capText, maskSecrets } from './redact';
import type { PrivacyLevel, Step, StepKind } from './types';

/** Longest string a REDACTED payload keeps. */
export const REDACTED_STRING_CAP = 2000;

/**
 * Keys of APPROVAL / INPUT / TOOL_WRITE payloads: metadata by nature, kept at every level.
 * Anything else in such a payload (input values, for instance) is dropped at every level.
 */
const DECISION_KEYS: Readonly<Partial<Record<StepKind, ReadonlySet<string>>>> = {
  APPROVAL: new Set(['approved', 'decidedBy', 'reason', 'turn', 'digest', 'callCount', 'toolNames']),
  INPUT: new Set(['submittedBy', 'turn', 'digest', 'toolName']),
  TOOL_WRITE: new Set(['table', 'id', 'callId', 'toolName']),
};

/** String-valued keys that are names or codes, not content (kept below REDACTED). */
const NAME_KEYS: ReadonlySet<string> = new Set([
  'toolName',
  'toolNames',
  'callId',
  'finishReason',
  'reason',
  'table',
  'id',
  'tools',
  'skills',
  'kind',
]);

/** Object-valued keys whose members are metadata (filtered recursively). */
const METADATA_OBJECT_KEYS: ReadonlySet<string> = new Set(['usage', 'subject']);

/**
 * The stored copy of a step payload at a privacy level (docs/run-lifecycle.md "Privacy of stored steps"):
 * NONE / METADATA remove every content value and keep sizes, names, timings, tokens and the
 * finish reason with `contentRedacted: true`; REDACTED masks secrets and e-mail addresses in
 * every string and caps it at 2,000 characters; FULL keeps it verbatim. APPROVAL, INPUT and
 * TOOL_WRITE payloads keep only their metadata keys, at every level.
 */
export function filterStepPayload(step: Step, level: PrivacyLevel): Record<string, unknown> {
  const decisionKeys = DECISION_KEYS[step.kind];
  if (decisionKeys) return pickDecisionMetadata(step.payload, decisionKeys);
  switch (level) {
    case 'NONE':
    case 'METADATA':
      return { ...metadataOnly(step.payload), contentRedacted: true };
    case 'REDACTED':
      return redactDeep(step.payload) as Record<string, unknown>;
    case 'FULL':
      return step.payload;
  }
}

/** The step with its payload filtered for storage. */
export function filterStep(step: Step, level: PrivacyLevel): Step {
  return { ...step, payload: filterStepPayload(step, level) };
}

/**
 * Whether the run's final answer is stored on the run: at REDACTED or FULL, or when the run
 * never went through a decision.
 */
export function keepAnswer(level: PrivacyLevel, hadDecision: boolean): boolean {
  return level === 'REDACTED' || level === 'FULL' || !hadDecision;
}

/** The answer as stored on the run: null when not kept, masked at REDACTED. */
export function storedAnswer(level: PrivacyLevel, hadDecision: boolean, answer: string): string | null {
  if (!keepAnswer(level, hadDecision)) return null;
  return level === 'REDACTED' ? maskSecrets(answer) : answer;
}

function pickDecisionMetadata(
  payload: Record<string, unknown>,
  keys: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (keys.has(key) && isPrimitiveOrList(value)) out[key] = value;
  }
  return out;
}

function isPrimitiveOrList(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((v) => isPrimitive(v));
  return isPrimitive(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function metadataOnly(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (value === undefined) continue;
    if (value === null || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
    else if (NAME_KEYS.has(key) && isNameValue(value)) out[key] = value;
    else if (METADATA_OBJECT_KEYS.has(key) && isPlainObject(value)) out[key] = metadataOnly(value);
    else Object.assign(out, summarise(key, value));
  }
  return out;
}

function isNameValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string' || typeof v === 'number');
  return typeof value === 'string';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Sizes and names in place of a content value. */
function summarise(key: string, value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { [`${key}Length`]: value.length };
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = { [`${key}Count`]: value.length };
    if (key === 'toolCalls') out.toolCallNames = value.map((c) => nameOf(c));
    return out;
  }
  return { [`${key}Size`]: jsonLength(value) };
}

function nameOf(call: unknown): string | null {
  return isPlainObject(call) && typeof call.name === 'string' ? call.name : null;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return capText(maskSecrets(value), REDACTED_STRING_CAP);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = redactDeep(v);
    return out;
  }
  return value;
}
