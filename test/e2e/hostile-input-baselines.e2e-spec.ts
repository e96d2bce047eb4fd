// Hostile input (issue 7), the other side of the refusals: each mutation's valid baseline
// (test/support/hostile-input-mutations.ts) against the same fixture is accepted and seen as a
// write, so every refusal in hostile-input-refusals.e2e-spec.ts came from the fuzzed value alone.
import { MUTATIONS } from '../support/hostile-input-mutations';
import { hostileInputApp } from '../support/hostile-input';

describe('hostile input', () => {
  const h = hostileInputApp();

  describe('the valid baselines (so each refusal above came from the fuzzed value)', () => {
    it.each(MUTATIONS.map((m) => [m.name, m] as const))('accepts %s and writes', async (_name, spec) => {
      const before = await h.fingerprint();
      const answer = await h.post(
        JSON.stringify({ query: spec.document, variables: spec.base(h.f) }),
        spec.as,
      );
      expect(answer.body?.errors).toBeUndefined();
      expect((answer.body?.data as Record<string, unknown>)[spec.name]).toBeTruthy();
      expect(await h.fingerprint()).not.toEqual(before);
    });
  });
});
