import type { ParseArgsConfig } from 'node:util';

/** A command line the CLI does not understand; the CLI prints it and exits with code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage text of the command concerned, or null for the general help. */
    readonly usage: string | null = null,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** One command: its words, help, options, and how its parsed options become a command. */
export interface CommandSpec<C> {
  /** The words naming the command, e.g. `['user', 'create']`. */
  readonly words: readonly string[];
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  build(values: OptionValues): C;
}

/** A trimmed, non-empty option of at most `max` characters (or the fallback when absent). */
export function text(values: OptionValues, name: string, max: number, fallback?: string): string {
  const raw = values[name];
  const value = typeof raw === 'string' ? raw.trim() : fallback;
  if (value === undefined) throw new UsageError(`missing --${name}`);
  if (value.length === 0) throw new UsageError(`--${name} must not be empty`);
  if (value.length > max) throw new UsageError(`--${name} is too long (at most ${max} characters)`);
  return value;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
