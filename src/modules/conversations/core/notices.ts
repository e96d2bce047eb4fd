/**
 * Notices: lines the chat adds to a conversation for the reader, stored language-neutral
 * (a code and its arguments) and rendered in the reader's locale when read. The model is
 * never sent them.
 */
export const NOTICES = [
  'PROCESS_DROPPED',
  'DECISION_HANDED_BACK',
  'RUN_FINISHED_OUTSIDE',
  'RUN_FAILED',
  'RUN_CANCELLED',
  'PROPOSAL_WITHDRAWN',
  'TURN_LOST',
  'TURN_WAITING',
  'APPROVAL_EXPIRED',
] as const;
export type Notice = (typeof NOTICES)[number];

type Locale = 'en' | 'de';
type Args = Readonly<Record<string, unknown>>;
type Texts = Record<Locale, (args: Args) => string>;

const DROPPED: Record<string, Record<Locale, string>> = {
  DETACHED: {
    en: 'The guided process was stopped: its skill is no longer available in this chat.',
    de: 'Der geführte Ablauf wurde beendet: Sein Skill ist in diesem Chat nicht mehr verfügbar.',
  },
  CONFIGURATION_CHANGED: {
    en: 'The guided process was stopped: the chat now works with a different configuration.',
    de: 'Der geführte Ablauf wurde beendet: Der Chat arbeitet jetzt mit einer anderen Konfiguration.',
  },
  PREDECESSOR_GONE: {
    en: 'The guided process was stopped: the step it continued from is no longer available.',
    de: 'Der geführte Ablauf wurde beendet: Der Schritt, an den er anknüpfte, ist nicht mehr verfügbar.',
  },
  VERSION_WITHDRAWN: {
    en: 'The guided process was stopped: the version of its instructions it started with was withdrawn.',
    de: 'Der geführte Ablauf wurde beendet: Die Fassung seiner Anweisungen, mit der er begann, wurde zurückgezogen.',
  },
  REFUSED_TOO_OFTEN: {
    en: 'The guided process was stopped: it could not be continued three times in a row.',
    de: 'Der geführte Ablauf wurde beendet: Er konnte dreimal hintereinander nicht fortgesetzt werden.',
  },
};
const DROPPED_GENERIC: Record<Locale, string> = {
  en: 'The guided process was stopped.',
  de: 'Der geführte Ablauf wurde beendet.',
};

const HANDED_BACK: Record<string, Record<Locale, string>> = {
  STALE_TURN: {
    en: 'Your decision was not carried out: the proposal changed in the meantime. Please review it again.',
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Der Vorschlag hat sich inzwischen geändert. Bitte prüfen Sie ihn erneut.',
  },
  ALREADY_RESUMING: {
    en: 'Your decision was not carried out: another decision was taken first.',
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Eine andere Entscheidung kam zuerst.',
  },
  APPROVER_NOT_PERMITTED: {
    en: 'Your decision was not carried out: you may not make every change the proposal contains.',
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Sie dürfen nicht jede vorgeschlagene Änderung vornehmen.',
  },
  SUBMITTER_NOT_PERMITTED: {
    en: 'Your answer was not carried out: you may not run everything it would continue.',
    de: 'Ihre Antwort wurde nicht ausgeführt: Sie dürfen nicht alles ausführen, was sie fortsetzen würde.',
  },
  CONFIGURATION_INACTIVE: {
    en: "Your decision was not carried out: the chat's configuration was deactivated.",
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Die Konfiguration des Chats wurde deaktiviert.',
  },
  CONFIGURATION_GONE: {
    en: "Your decision was not carried out: the chat's configuration was deleted.",
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Die Konfiguration des Chats wurde gelöscht.',
  },
  RUN_NOT_WAITING: {
    en: 'Your decision was not carried out: the proposal is no longer waiting.',
    de: 'Ihre Entscheidung wurde nicht ausgeführt: Der Vorschlag wartet nicht mehr.',
  },
};
const HANDED_BACK_GENERIC: Record<Locale, (code: string) => string> = {
  en: (code) => `Your decision was not carried out (${code}). The proposal is waiting again.`,
  de: (code) => `Ihre Entscheidung wurde nicht ausgeführt (${code}). Der Vorschlag wartet erneut.`,
};

const TEXTS: Record<Notice, Texts> = {
  PROCESS_DROPPED: {
    en: (a) => (DROPPED[String(a.reason)] ?? DROPPED_GENERIC).en,
    de: (a) => (DROPPED[String(a.reason)] ?? DROPPED_GENERIC).de,
  },
  DECISION_HANDED_BACK: {
    en: (a) => HANDED_BACK[String(a.code)]?.en ?? HANDED_BACK_GENERIC.en(String(a.code)),
    de: (a) => HANDED_BACK[String(a.code)]?.de ?? HANDED_BACK_GENERIC.de(String(a.code)),
  },
  RUN_FINISHED_OUTSIDE: {
    en: () => 'This proposal was decided outside the chat.',
    de: () => 'Dieser Vorschlag wurde außerhalb des Chats entschieden.',
  },
  RUN_FAILED: {
    en: (a) =>
      `The answer could not be completed${typeof a.message === 'string' && a.message ? `: ${a.message}` : '.'}`,
    de: (a) =>
      `Die Antwort konnte nicht fertiggestellt werden${typeof a.message === 'string' && a.message ? `: ${a.message}` : '.'}`,
  },
  RUN_CANCELLED: {
    en: () => 'This turn was cancelled.',
    de: () => 'Dieser Schritt wurde abgebrochen.',
  },
  PROPOSAL_WITHDRAWN: {
    en: () => 'The waiting proposal was withdrawn by your new message.',
    de: () => 'Der offene Vorschlag wurde durch Ihre neue Nachricht zurückgezogen.',
  },
  TURN_LOST: {
    en: () => 'This turn stopped without an answer. Please send your message again.',
    de: () => 'Dieser Schritt endete ohne Antwort. Bitte senden Sie Ihre Nachricht erneut.',
  },
  APPROVAL_EXPIRED: {
    en: () => 'Nobody decided on this proposal before its deadline: it lapsed and nothing was changed.',
    de: () =>
      'Über diesen Vorschlag wurde vor Ablauf der Frist nicht entschieden: Er ist verfallen, nichts wurde geändert.',
  },
  TURN_WAITING: {
    en: () => 'All assistants are busy: your message waits and will be answered as soon as one is free.',
    de: () =>
      'Alle Assistenten sind beschäftigt: Ihre Nachricht wartet und wird beantwortet, sobald einer frei ist.',
  },
};

/** The reader's locale as far as notices go: German for `de`/`de-*`, English otherwise. */
export function noticeLocale(locale: string | null | undefined): Locale {
  return (locale ?? '').toLowerCase().split(/[-_]/)[0] === 'de' ? 'de' : 'en';
}

/** The sentence for a notice in the reader's locale; a generic one for an unknown notice. */
export function renderNotice(notice: string, args: Args | null, locale: string | null | undefined): string {
  const texts = (TEXTS as Record<string, Texts | undefined>)[notice];
  const lang = noticeLocale(locale);
  if (!texts) return lang === 'de' ? 'Hinweis.' : 'Notice.';
  return texts[lang](args ?? {});
}
