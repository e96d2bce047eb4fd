import { useId } from 'react';
import type { Field, FieldErrors } from './schema-fields';

interface Props {
  fields: readonly Field[];
  values: Readonly<Record<string, string>>;
  errors: FieldErrors;
  onChange: (name: string, value: string) => void;
}

/** The input form generated from an input request's JSON Schema (fields from {@link fieldsOf}). */
export function SchemaForm({ fields, values, errors, onChange }: Props) {
  return (
    <div className="schema-form">
      {fields.map((field) => (
        <SchemaField
          key={field.name}
          field={field}
          value={values[field.name] ?? field.initial}
          error={errors[field.name]}
          onChange={(v) => onChange(field.name, v)}
        />
      ))}
    </div>
  );
}

function SchemaField({
  field,
  value,
  error,
  onChange,
}: {
  field: Field;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  const common = {
    'aria-describedby': describedBy || undefined,
    'aria-invalid': error ? true : undefined,
  };
  const label = (
    <>
      {field.label}
      {field.required && <span aria-hidden="true"> *</span>}
    </>
  );
  const extras = (
    <>
      {field.description && (
        <span id={hintId} className="hint">
          {field.description}
        </span>
      )}
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </>
  );

  if (field.kind === 'choice') {
    return (
      <fieldset className="field" {...common} aria-required={field.required}>
        <legend>{label}</legend>
        {field.options.map((option) => (
          <label key={option} className="choice">
            <input
              type="radio"
              name={`${id}-choice`}
              value={option}
              checked={value === option}
              onChange={() => onChange(option)}
              required={field.required}
            />
            {option}
          </label>
        ))}
        {extras}
      </fieldset>
    );
  }
  if (field.kind === 'boolean') {
    return (
      <div className="field">
        <label className="choice">
          <input
            type="checkbox"
            checked={value === 'true'}
            onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
            {...common}
          />
          {label}
        </label>
        {extras}
      </div>
    );
  }
  const multiline = field.kind === 'longText' || field.kind === 'json';
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea id={id} rows={3} value={value} onChange={(e) => onChange(e.target.value)} {...common} />
      ) : (
        <input
          id={id}
          type={field.kind === 'text' ? 'text' : 'number'}
          step={field.kind === 'integer' ? 1 : 'any'}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          required={field.required}
          {...common}
        />
      )}
      {extras}
    </div>
  );
}
