import { Refusal } from '../../../common/refusal';
import { applyPageTextChanges, pageTextChanges, PageTextFields } from './page-text-changes';

const current: PageTextFields = {
  title: 'Home',
  body: 'Welcome.',
  seoTitle: 'Demo: home',
  seoDescription: null,
};

describe('page text changes', () => {
  it('lists only the fields that change, in field order', () => {
    const changes = pageTextChanges(current, { seoDescription: 'New', title: 'Home', seoTitle: null });
    expect(changes).toEqual([
      { field: 'seoTitle', from: 'Demo: home', to: null },
      { field: 'seoDescription', from: null, to: 'New' },
    ]);
    expect(applyPageTextChanges(current, changes)).toEqual({
      ...current,
      seoTitle: null,
      seoDescription: 'New',
    });
  });

  it('takes values up to their limit in characters, not UTF-16 units', () => {
    const title = '🚀'.repeat(500);
    expect(pageTextChanges(current, { title })).toEqual([{ field: 'title', from: 'Home', to: title }]);
  });

  it.each([
    [{ title: '' }, 'title'],
    [{ title: '🚀'.repeat(501) }, 'title'],
    [{ title: null }, 'title'],
    [{ body: null }, 'body'],
    [{ seoTitle: 5 }, 'seoTitle'],
    [{ title: 'x'.repeat(501) }, 'title'],
    [{ seoDescription: 'x'.repeat(5001) }, 'seoDescription'],
  ])('refuses %j with BAD_USER_INPUT', (patch, field) => {
    let refusal: unknown;
    try {
      pageTextChanges(current, patch as never);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal).toMatchObject({ code: 'BAD_USER_INPUT', details: { field } });
  });
});
