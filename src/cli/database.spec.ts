import { redactUrl } from './database';

describe('redactUrl', () => {
  it('hides the password of a database URL and keeps the rest for the message', () => {
    expect(redactUrl('postgres://app:s3cret@db.internal:5432/countersign')).toBe(
      'postgres://app:***@db.internal:5432/countersign',
    );
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/x')).toBe('postgres://postgres@127.0.0.1:5432/x');
  });

  it('never echoes something it cannot parse', () => {
    expect(redactUrl('postgres://app:s3cret@[broken')).toBe('the DATABASE_URL');
  });
});
