import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { ChatSetup } from '../../configurations';
import { mayEditLanguage, PagesService } from '../../content';
import { pinnedVersionId, RunsService, type SkillInvocation } from '../../runs';
import type { ProcessVersionFacts } from '../../runs';
import { SkillsService } from '../../skills';
import type { ViewContext } from '../core/conversation-input';
import {
  contextNote,
  planTurnSkills,
  type ConversationSkillState,
  type TurnSkillPlan,
} from '../core/turn-plan';

/** Everything a turn sends besides the message: its skills, the process's versions, the page note. */
export interface TurnInputs {
  readonly plan: TurnSkillPlan;
  readonly invocation: SkillInvocation | null;
  /** Skill ids of the catalogue to their approved version ids. */
  readonly catalogueVersions: ReadonlyMap<number, number>;
  /** The skill versions the turn may pin or continue with. */
  readonly versions: ReadonlyMap<number, ProcessVersionFacts>;
  readonly contextNote: string;
}

/**
 * Reads what one chat turn is made of, fresh for every turn (docs/chat-and-skills.md "How a
 * skill reaches a run"): the skill plan, the skill versions the process starts with or keeps
 * (the predecessor's pin names it), and the page and language note for the system prompt.
 */
@Injectable()
export class TurnInputsReader {
  constructor(
    private readonly skills: SkillsService,
    private readonly runs: RunsService,
    private readonly pages: PagesService,
  ) {}

  async read(
    user: AuthUser,
    conversation: ConversationSkillState,
    setup: ChatSetup,
    view: ViewContext,
  ): Promise<TurnInputs> {
    const plan = planTurnSkills(
      conversation,
      setup.catalogue,
      setup.task.configuration.skills,
      await this.pickedSkill(conversation.skillIdentifier),
    );
    const catalogueVersions = new Map(setup.catalogue.map((e) => [e.skillId, e.skillVersionId]));
    const wanted = new Set<number>(setup.catalogue.filter((e) => e.isProcess).map((e) => e.skillVersionId));
    if (plan.predecessorRunId) {
      const predecessor = await this.runs.findRunById(plan.predecessorRunId);
      const pinned = predecessor ? pinnedVersionId(predecessor.processPin) : null;
      if (pinned !== null) wanted.add(pinned);
    }
    const versions = new Map(
      (await this.skills.findVersions([...wanted])).map((v) => [
        v.id,
        { id: v.id, version: v.version, state: v.state, name: v.name, body: v.body },
      ]),
    );
    return {
      plan,
      invocation: plan.invoke ? invocationOf(plan.invoke, view) : null,
      catalogueVersions,
      versions,
      contextNote: await this.contextNoteFor(user, view),
    };
  }

  private async pickedSkill(identifier: string | null) {
    if (!identifier) return null;
    const [skill] = await this.skills.findByIdentifiers([identifier]);
    return skill ?? null;
  }

  /** The system prompt's lines about the page (id, title) and the language the user may edit. */
  private async contextNoteFor(user: AuthUser, view: ViewContext): Promise<string> {
    if (view.pageId === null) return '';
    const page = await this.pages.getPageForUser(user, view.pageId);
    if (!page) return '';
    const languageId = view.languageId ?? 0;
    const text = await this.pages.readText(page.id, languageId);
    let language: { id: number; code: string | null; title: string | null } | null = null;
    if (
      view.languageId !== null &&
      mayEditLanguage(user, page, view.languageId, await this.pages.siteLanguageIds(page))
    ) {
      const named = (await this.pages.siteLanguagesOf(page)).find((l) => l.languageId === view.languageId);
      language = { id: view.languageId, code: named?.isoCode ?? null, title: named?.title ?? null };
    }
    return contextNote({ page: { id: page.id, title: text?.title ?? null, slug: page.slug }, language });
  }
}

function invocationOf(
  entry: { skillId: number; identifier: string; skillVersionId: number; version: number },
  view: ViewContext,
): SkillInvocation {
  return {
    skillId: entry.skillId,
    identifier: entry.identifier,
    skillVersionId: entry.skillVersionId,
    version: entry.version,
    subject: { table: 'pages', id: view.pageId, languageId: view.languageId ?? 0 },
  };
}
