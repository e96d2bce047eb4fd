/** The demo data set of docs/demo-data.md, as plain data. */

export interface DemoPage {
  readonly key: string;
  readonly parent: string | null;
  readonly slug: string;
  readonly en: { title: string; body: string; seoTitle: string };
  readonly de: { title: string; body: string; seoTitle: string };
}

export const DEMO_SITE = {
  name: 'Demo',
  languages: [
    { languageId: 0, isoCode: 'en', title: 'English' },
    { languageId: 1, isoCode: 'de', title: 'Deutsch' },
    { languageId: 2, isoCode: 'fr', title: 'Français' },
  ],
} as const;

const text = (title: string, body: string, seoTitle: string) => ({ title, body, seoTitle });

export const DEMO_PAGES: readonly DemoPage[] = [
  {
    key: 'Home',
    parent: null,
    slug: '/',
    en: text('Home', 'Welcome to the Demo site.', 'Demo: home'),
    de: text('Startseite', 'Willkommen auf der Demo-Website.', 'Demo: Startseite'),
  },
  {
    key: 'About',
    parent: 'Home',
    slug: '/about',
    en: text('About', 'Who we are and what we do.', 'About us'),
    de: text('Über uns', 'Wer wir sind und was wir tun.', 'Über uns'),
  },
  {
    key: 'Products',
    parent: 'Home',
    slug: '/products',
    en: text('Products', 'Everything we make.', 'Our products'),
    de: text('Produkte', 'Alles, was wir herstellen.', 'Unsere Produkte'),
  },
  {
    key: 'Widget',
    parent: 'Products',
    slug: '/products/widget',
    en: text('Widget', 'The widget does one thing well.', 'The widget'),
    de: text('Widget', 'Das Widget kann eine Sache gut.', 'Das Widget'),
  },
  {
    key: 'Blog',
    parent: 'Home',
    slug: '/blog',
    en: text('Blog', 'News and notes.', 'Blog'),
    de: text('Blog', 'Neuigkeiten und Notizen.', 'Blog'),
  },
  {
    key: 'Launch',
    parent: 'Blog',
    slug: '/blog/launch',
    en: text('Launch', 'We launched.', 'Launch day'),
    de: text('Start', 'Wir sind gestartet.', 'Starttag'),
  },
];

export const ORPHAN_PAGE = {
  key: 'Orphan',
  slug: '/orphan',
  en: text('Orphan', 'A page outside every site.', 'Orphan page'),
} as const;

export interface DemoGroup {
  readonly name: string;
  readonly grants: readonly ('AGENT_APPROVE' | 'CHAT')[];
  /** Page keys whose subtrees the group may show / edit. */
  readonly show: readonly string[];
  readonly edit: readonly string[];
  readonly languages: readonly number[];
}

export const DEMO_GROUPS: readonly DemoGroup[] = [
  { name: 'editors', grants: ['CHAT'], show: ['Home'], edit: ['Home'], languages: [0, 1] },
  { name: 'approvers', grants: ['AGENT_APPROVE'], show: ['Home'], edit: ['Home'], languages: [0, 1] },
  { name: 'interns', grants: ['CHAT'], show: ['Home'], edit: [], languages: [] },
  { name: 'restricted', grants: ['CHAT'], show: ['Blog'], edit: [], languages: [0] },
];

export interface DemoUser {
  readonly username: string;
  readonly displayName: string;
  readonly locale: string;
  readonly isAdmin: boolean;
  readonly groups: readonly string[];
}

export const DEMO_USERS: readonly DemoUser[] = [
  { username: 'admin', displayName: 'Admin', locale: 'en', isAdmin: true, groups: [] },
  { username: 'alice', displayName: 'Alice', locale: 'en', isAdmin: false, groups: ['editors'] },
  { username: 'bob', displayName: 'Bob', locale: 'de', isAdmin: false, groups: ['approvers'] },
  { username: 'carol', displayName: 'Carol', locale: 'en', isAdmin: false, groups: ['editors', 'approvers'] },
  { username: 'dave', displayName: 'Dave', locale: 'en', isAdmin: false, groups: ['interns'] },
  { username: 'erin', displayName: 'Erin', locale: 'en', isAdmin: false, groups: ['restricted'] },
];

/** The scripted rounds of demo-editor: read the subject page, propose an SEO title, answer. */
export const EDITOR_ROUNDS = [
  { toolCalls: [{ name: 'pages_read', arguments: {} }] },
  { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'A sharper SEO title' } }] },
  { text: 'I proposed a sharper SEO title for the page.', chunks: 5, chunkDelayMs: 20 },
];

export const QUESTION_ROUNDS = [
  {
    toolCalls: [
      {
        name: 'ask_user',
        arguments: {
          question: 'Which tone should the page use?',
          schema: {
            type: 'object',
            properties: { tone: { type: 'string', enum: ['formal', 'casual'] } },
            required: ['tone'],
            additionalProperties: false,
          },
        },
      },
    ],
  },
  { text: 'Thanks, I will use that tone.' },
];

/** Every demo configuration's system prompt and round limit. */
export const DEMO_SYSTEM_PROMPT = 'You are an editorial assistant for the Demo site.';
export const DEMO_MAX_ITERATIONS = 5;

export interface DemoConfiguration {
  readonly identifier: string;
  readonly name: string;
  readonly requireSecondApprover: boolean;
  readonly privacyLevel: 'NONE' | 'METADATA' | 'REDACTED' | 'FULL';
  readonly isActive: boolean;
  readonly rounds: readonly unknown[];
  readonly skills: readonly string[];
}

export const DEMO_CONFIGURATIONS: readonly DemoConfiguration[] = [
  {
    identifier: 'demo-editor',
    name: 'Demo editor',
    requireSecondApprover: false,
    privacyLevel: 'METADATA',
    isActive: true,
    rounds: EDITOR_ROUNDS,
    skills: ['seo-process', 'tone-of-voice', 'legacy-skill'],
  },
  {
    identifier: 'demo-four-eyes',
    name: 'Demo four-eyes',
    requireSecondApprover: true,
    privacyLevel: 'METADATA',
    isActive: true,
    rounds: EDITOR_ROUNDS,
    skills: ['seo-process', 'tone-of-voice'],
  },
  {
    identifier: 'demo-question',
    name: 'Demo question',
    requireSecondApprover: false,
    privacyLevel: 'FULL',
    isActive: true,
    rounds: QUESTION_ROUNDS,
    skills: [],
  },
  {
    identifier: 'demo-inactive',
    name: 'Demo inactive',
    requireSecondApprover: false,
    privacyLevel: 'METADATA',
    isActive: false,
    rounds: EDITOR_ROUNDS,
    skills: [],
  },
];

export const DEMO_SKILLS = [
  {
    identifier: 'seo-process',
    name: 'Optimise the SEO of this page',
    description: 'A guided process: review the page, propose SEO title and description, apply them.',
    body: 'Work step by step: read the page, propose a better SEO title and description, and apply them once approved.',
    isProcess: true,
    enabled: true,
  },
  {
    identifier: 'tone-of-voice',
    name: 'Tone of voice',
    description: 'Write in our house tone: clear, friendly, no jargon.',
    body: 'Write clearly and warmly. Prefer short sentences. Avoid jargon.',
    isProcess: false,
    enabled: true,
  },
  {
    identifier: 'legacy-skill',
    name: 'Legacy skill',
    description: 'An old skill, disabled.',
    body: 'Do things the old way.',
    isProcess: false,
    enabled: false,
  },
] as const;

export const DEMO_TASKS = [
  {
    identifier: 'default',
    name: 'Default chat',
    configuration: 'demo-editor',
    groups: [] as string[],
    priority: 0,
  },
  {
    identifier: 'four-eyes-chat',
    name: 'Four-eyes chat',
    configuration: 'demo-four-eyes',
    groups: ['restricted'],
    priority: 10,
  },
] as const;
