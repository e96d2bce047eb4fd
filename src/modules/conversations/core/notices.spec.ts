import { NOTICES, noticeLocale, renderNotice } from './notices';

describe('notices', () => {
  it('renders every notice in English and German, differently', () => {
    for (const notice of NOTICES) {
      const en = renderNotice(notice, { reason: 'DETACHED', code: 'STALE_TURN', message: 'boom' }, 'en');
      const de = renderNotice(notice, { reason: 'DETACHED', code: 'STALE_TURN', message: 'boom' }, 'de');
      expect(en.length).toBeGreaterThan(10);
      expect(de.length).toBeGreaterThan(10);
      expect(de).not.toBe(en);
    }
  });

  it.each([
    'DETACHED',
    'CONFIGURATION_CHANGED',
    'PREDECESSOR_GONE',
    'VERSION_WITHDRAWN',
    'REFUSED_TOO_OFTEN',
  ])('has its own sentence for the drop reason %s', (reason) => {
    const generic = renderNotice('PROCESS_DROPPED', { reason: 'SOMETHING_NEW' }, 'en');
    expect(renderNotice('PROCESS_DROPPED', { reason }, 'en')).not.toBe(generic);
    expect(renderNotice('PROCESS_DROPPED', { reason }, 'de')).not.toBe(
      renderNotice('PROCESS_DROPPED', { reason: 'SOMETHING_NEW' }, 'de'),
    );
  });

  it('falls back to a generic sentence for an unknown reason or notice, and to English for other locales', () => {
    expect(renderNotice('PROCESS_DROPPED', { reason: 'SOMETHING_NEW' }, 'en')).toBe(
      'The guided process was stopped.',
    );
    expect(renderNotice('PROCESS_DROPPED', {}, 'de-AT')).toBe('Der geführte Ablauf wurde beendet.');
    expect(renderNotice('DECISION_HANDED_BACK', { code: 'NEW_CODE' }, 'fr')).toContain('NEW_CODE');
    expect(renderNotice('NOT_A_NOTICE', null, 'en')).toBe('Notice.');
    expect(noticeLocale('DE_de')).toBe('de');
    expect(noticeLocale(null)).toBe('en');
  });
});
