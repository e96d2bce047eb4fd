import { parseCli, UsageError } from './args';

describe('webhook commands', () => {
  it('parses add with all events, enabled by default', () => {
    expect(parseCli(['webhook', 'add', '--url', 'https://hooks.example.com/x', '--events', 'all'])).toEqual({
      kind: 'webhook-add',
      url: 'https://hooks.example.com/x',
      events: ['run.waiting', 'decision.recorded', 'run.settled', 'run.expired'],
      enabled: true,
      description: null,
    });
  });

  it('parses update with a subset of events and --disable', () => {
    const id = '0b7d6c55-6d3c-4c1a-9a51-0d7e1d1f5a11';
    expect(parseCli(['webhook', 'update', '--id', id, '--events', 'run.settled', '--disable'])).toEqual({
      kind: 'webhook-update',
      id,
      url: null,
      events: ['run.settled'],
      enabled: false,
    });
  });

  it('refuses an unknown event, a bad id and both --enable and --disable', () => {
    expect(() => parseCli(['webhook', 'add', '--url', 'https://x.example', '--events', 'run.gone'])).toThrow(
      UsageError,
    );
    expect(() => parseCli(['webhook', 'remove', '--id', 'nope'])).toThrow(/not an id/);
    const id = '0b7d6c55-6d3c-4c1a-9a51-0d7e1d1f5a11';
    expect(() => parseCli(['webhook', 'update', '--id', id, '--enable', '--disable'])).toThrow(/not both/);
  });
});
