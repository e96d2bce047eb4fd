import { type ArgumentMetadata, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import Ajv, { type ValidateFunction } from 'ajv';
import { plainToInstance, TransformationType } from 'class-transformer';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { defaultConverters } from 'class-validator-jsonschema/build/defaultConverters';
import { defaultOptions } from 'class-validator-jsonschema/build/options';

// why: class-transformer keeps its decorators' metadata in a module its index does not export.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const transformerStorage = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerMetadata;
};
const transformerMetadata = transformerStorage.defaultMetadataStorage;

/** A class whose instances an input becomes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InputClass = new (...args: any[]) => object;
type Schema = Record<string, unknown>;

/**
 * The class-validator rules whose JSON Schema (class-validator-jsonschema) is never looser than
 * class-validator itself, with the constraints under which that holds. A class with any other
 * rule, or one of these outside its bounds, is always checked by class-validator.
 */
const FAITHFUL: Readonly<Record<string, (constraints: readonly unknown[]) => boolean>> = {
  isString: () => true,
  isBoolean: () => true,
  isInt: () => true,
  min: ([bound]) => typeof bound === 'number',
  max: ([bound]) => typeof bound === 'number',
  isIn: ([values]) => Array.isArray(values) && values.every((v) => ['string', 'number'].includes(typeof v)),
  maxLength: ([max]) => typeof max === 'number',
  // why: validator.js counts a character and the variation selector after it as one, a JSON
  // Schema length counts two code points: a compiled minimum above 1 could accept what
  // class-validator refuses (a maximum can only be stricter).
  minLength: ([min]) => typeof min === 'number' && min <= 1,
  // why: the schema keeps a RegExp's source and drops its flags (and has no source for a pattern
  // given as a string); a RegExp without flags runs the same in both (ajv below compiles it
  // without the `u` flag, as class-validator runs it).
  matches: ([pattern, modifiers]) => modifiers == null && pattern instanceof RegExp && pattern.flags === '',
};

const CUSTOM = ValidationTypes.CUSTOM_VALIDATION;
const CONDITIONAL = ValidationTypes.CONDITIONAL_VALIDATION;

/** The API's validation: inputs become instances of their classes; unknown values are not refused. */
export const API_VALIDATION: ValidationPipeOptions = {
  transform: true,
  forbidUnknownValues: false,
  validationError: { target: false },
};

const ajv = new Ajv({ allErrors: false, strict: false, unicodeRegExp: false, logger: false });

/**
 * Nest's ValidationPipe with the same class-validator rules compiled, once per input class, into
 * a JSON Schema check (class-validator-jsonschema, ajv). A value the compiled check accepts goes
 * on as the stock pipe would hand it on (the same `plainToInstance` result); anything it refuses,
 * and every class whose rules do not all compile faithfully (`FAITHFUL`), goes through the stock
 * pipe, so every refusal keeps its code and message. The compiled check is never looser than
 * class-validator: it checks the same instance class-validator would, with rules that accept
 * at most what class-validator accepts, and refuses any property class-validator has no rule
 * for (the stock pipe then decides).
 *
 * why: class-validator's executor cost about 0.4 ms of every decision's 5 ms (bench/README.md,
 * "Issue 13, twenty-first round"), where a compiled check is one short function.
 */
export class CompiledValidationPipe extends ValidationPipe {
  private readonly checks = new WeakMap<InputClass, ValidateFunction | null>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype as InputClass | undefined;
    const eligible = this.isTransformEnabled && !this.expectedType && this.toValidate(metadata);
    if (metatype && eligible && isPlainRecord(value)) {
      const check = this.checkFor(metatype);
      const entity = check ? this.instanceOf(metatype, value) : null;
      if (check?.(entity)) return entity;
    }
    return super.transform(value, metadata);
  }

  /**
   * The instance the stock pipe would build (`plainToInstance`). For a value of only primitives
   * on keys that are plain fields of the class, without transform options, that instance is the
   * class' own with the value's keys assigned in order (class-transformer copies primitives as
   * they are, and the compiled class has no class-transformer decorators): built directly, as
   * class-transformer's general walk costs as much as the check it saves.
   */
  private instanceOf(metatype: InputClass, value: Record<string, unknown>): object {
    const plain =
      this.transformOptions === undefined &&
      Object.keys(value).every((key) => isPrimitive(value[key]) && !(key in metatype.prototype));
    return plain
      ? Object.assign(new metatype(), value)
      : plainToInstance(metatype, value, this.transformOptions);
  }

  /** The compiled check of a class, or null where class-validator must decide every value. */
  checkFor(metatype: InputClass): ValidateFunction | null {
    let check = this.checks.get(metatype);
    if (check === undefined) {
      check = compile(metatype);
      this.checks.set(metatype, check);
    }
    return check;
  }
}

/**
 * The class's rules as one compiled check, or null where they do not all compile faithfully.
 * Each rule is converted on its own and the rules of a property are joined with `allOf`, as
 * class-validator runs every one of them (class-validator-jsonschema's own merge of a property's
 * rules lets a later `type` overwrite an earlier one: `@Min` after `@IsInt` would allow 1.5).
 */
function compile(metatype: InputClass): ValidateFunction | null {
  const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
  if (rules.length === 0 || !rules.every(faithful)) return null;
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const rule of rules)
    byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
  if (transformsValues(metatype, [...byProperty.keys()])) return null;
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [property, own] of byProperty) {
    const checks = own.filter((r) => r.type === CUSTOM).map(ruleSchema);
    // why: a rule without a schema of its own leaves the whole class to class-validator.
    if (checks.some((c) => c === null)) return null;
    const all: Schema = checks.length > 0 ? { allOf: checks } : {};
    // why: IsOptional lets null and undefined through without checking anything else; every
    // other rule here refuses undefined, so a property without it must be there.
    const optional = own.some((r) => r.type === CONDITIONAL);
    properties[property] = optional ? { anyOf: [{ type: 'null' }, all] } : all;
    if (!optional) required.push(property);
  }
  return ajv.compile({ type: 'object', properties, required, additionalProperties: false });
}

/** One rule's JSON Schema, converted alone by class-validator-jsonschema's converter for it. */
function ruleSchema(rule: ValidationMetadata): Schema | null {
  const converter = defaultConverters[rule.name ?? ''];
  const converted = typeof converter === 'function' ? converter(rule, defaultOptions) : converter;
  return converted && !('$ref' in converted) ? (converted as Schema) : null;
}

function faithful(rule: ValidationMetadata): boolean {
  if (rule.each || (rule.groups?.length ?? 0) > 0 || rule.always) return false;
  if (rule.type === CONDITIONAL) return rule.name === 'isOptional';
  if (rule.type !== CUSTOM || !rule.name) return false;
  const bounds = FAITHFUL[rule.name];
  return bounds !== undefined && bounds(rule.constraints ?? []);
}

/** Whether class-transformer changes a value of this class (its rules would then see another). */
function transformsValues(target: InputClass, properties: readonly string[]): boolean {
  return (
    transformerMetadata.getStrategy(target) !== 'none' ||
    transformerMetadata.getExposedMetadatas(target).length > 0 ||
    transformerMetadata.getExcludedMetadatas(target).length > 0 ||
    properties.some(
      (p) =>
        transformerMetadata.findTypeMetadata(target, p) !== undefined ||
        transformerMetadata.findTransformMetadatas(target, p, TransformationType.PLAIN_TO_CLASS).length > 0,
    )
  );
}

function isPrimitive(value: unknown): boolean {
  return value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value);
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value);
}
