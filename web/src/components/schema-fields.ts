/**
 * Turns the JSON Schema of an input request into form fields, and the form's strings back
 * into the values `submitRunInput` takes. The server checks the values against the same
 * schema (INVALID_INPUT); this only makes the common cases pleasant.
 */

export type FieldKind = 'choice' | 'text' | 'longText' | 'number' | 'integer' | 'boolean' | 'json';

export interface Field {
  readonly name: string;
  readonly label: string;
  readonly description: string | null;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly options: readonly string[];
  readonly initial: string;
}

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function kindOf(schema: Schema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'choice';
  switch (schema.type) {
    case 'string':
      return typeof schema.maxLength === 'number' && schema.maxLength <= 200 ? 'text' : 'longText';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    default:
      return 'json';
  }
}

function initialOf(schema: Schema, kind: FieldKind): string {
  if (schema.default === undefined) return kind === 'boolean' ? 'false' : '';
  return typeof schema.default === 'string' && kind !== 'json'
    ? schema.default
    : JSON.stringify(schema.default);
}

/** The fields of an object schema, in property order; one JSON field for any other schema. */
export function fieldsOf(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) {
    return [
      {
        name: '',
        label: 'Answer (JSON)',
        description: null,
        kind: 'json',
        required: true,
        options: [],
        initial: '',
      },
    ];
  }
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const kind = kindOf(property);
    return {
      name,
      label: typeof property.title === 'string' ? property.title : name,
      description: typeof property.description === 'string' ? property.description : null,
      kind,
      required: required.has(name),
      options: kind === 'choice' ? (property.enum as string[]) : [],
      initial: initialOf(property, kind),
    };
  });
}

/** A value that could not be read from its field (bad number or JSON), by field name. */
export type FieldErrors = Record<string, string>;

function valueOf(field: Field, raw: string): { value?: unknown; error?: string } {
  switch (field.kind) {
    case 'boolean':
      return { value: raw === 'true' };
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n) || (field.kind === 'integer' && !Number.isInteger(n))) {
        return { error: field.kind === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
      }
      return { value: n };
    }
    case 'json':
      try {
        return { value: JSON.parse(raw) as unknown };
      } catch {
        return { error: 'Enter valid JSON.' };
      }
    case 'choice':
    case 'text':
    case 'longText':
      return { value: raw };
  }
}

/** The values to submit, or the fields that could not be read. Empty optional fields are left out. */
export function valuesOf(
  fields: readonly Field[],
  raw: Readonly<Record<string, string>>,
): { values: unknown; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const text = raw[field.name] ?? '';
    if (text === '' && field.kind !== 'boolean') {
      if (field.required) errors[field.name] = 'Required.';
      continue;
    }
    const read = valueOf(field, text);
    if (read.error) errors[field.name] = read.error;
    else if (field.name === '') return { values: read.value, errors };
    else values[field.name] = read.value;
  }
  return { values, errors };
}

/** Field errors from an INVALID_INPUT refusal (`problems: [{ path: '/tone', message }]`). */
export function problemsByField(extensions: Readonly<Record<string, unknown>>): FieldErrors {
  const errors: FieldErrors = {};
  const problems = Array.isArray(extensions.problems) ? (extensions.problems as unknown[]) : [];
  for (const p of problems) {
    if (!isObject(p) || typeof p.path !== 'string') continue;
    const name = p.path.split('/')[1] ?? '';
    errors[name] = typeof p.message === 'string' ? p.message : 'Not valid.';
  }
  return errors;
}
