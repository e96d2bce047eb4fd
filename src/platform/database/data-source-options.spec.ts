import { dataSourceOptions } from './data-source-options';

describe('dataSourceOptions', () => {
  const target = { kind: 'postgres' as const, url: 'postgres://postgres@127.0.0.1:5432/x' };
  const extra = (o: ReturnType<typeof dataSourceOptions>): Record<string, unknown> =>
    (o as { extra: Record<string, unknown> }).extra;

  it('has the server end a transaction left idle past the given time (a run lease)', () => {
    expect(extra(dataSourceOptions(target, 4, { idleInTransactionSeconds: 2 }))).toMatchObject({
      max: 4,
      options: '-c idle_in_transaction_session_timeout=2000',
    });
  });

  it('sets no session limit unless asked to', () => {
    expect(extra(dataSourceOptions(target))).not.toHaveProperty('options');
  });
});
