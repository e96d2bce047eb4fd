import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, type Api } from '../api/graphql';
import { SITES, SKILL_CATALOGUE } from '../api/operations';
import { refusalMessage } from '../api/refusals';
import type { Language, PageNode, Site, SkillCatalogueEntry } from '../api/types';
import { navigate } from '../router';
import { startUrl } from './chat-url';

interface Catalogues {
  sites: Site[];
  skills: SkillCatalogueEntry[];
}

/** The languages offered for a page: those of its languages the viewer may work in. */
function languagesFor(sites: readonly Site[], pageId: string): Language[] {
  const find = (node: PageNode): PageNode | undefined =>
    node.id === pageId ? node : (node.children ?? []).map(find).find((n) => n !== undefined);
  for (const site of sites) {
    const node = find(site.rootPage);
    if (node) return node.editableLanguages ?? [];
  }
  return [];
}

/**
 * Starts a conversation from a page picker (the page tree as one radio group, so arrow keys move
 * through it), a language of that page's site and an optional skill. Submitting goes to the
 * start URL (`?pageId=&languageId=&skill=`), which creates the conversation once.
 */
export function NewConversation({ api }: { api: Api }) {
  const [data, setData] = useState<Catalogues | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pageId, setPageId] = useState<string>('');
  const [languageId, setLanguageId] = useState<number>(0);
  const [skill, setSkill] = useState('');

  useEffect(() => {
    let live = true;
    Promise.all([
      api.request<{ sites: Site[] }>(SITES),
      api.request<{ skillCatalogue: SkillCatalogueEntry[] }>(SKILL_CATALOGUE),
    ]).then(
      ([s, c]) => live && setData({ sites: s.sites, skills: c.skillCatalogue }),
      (e: unknown) => live && setError(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK')),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const languages = data && pageId ? languagesFor(data.sites, pageId) : [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(startUrl(pageId || null, pageId ? languageId : null, skill || null));
  };

  return (
    <>
      <h1>New conversation</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {!data && !error && <p className="loading">Loading pages and skills…</p>}
      {data && (
        <form className="new-conversation" onSubmit={submit}>
          <fieldset className="page-tree">
            <legend>Page</legend>
            <label className="choice">
              <input
                type="radio"
                name="page"
                value=""
                checked={pageId === ''}
                onChange={() => setPageId('')}
              />
              No page (a general conversation)
            </label>
            {data.sites.map((site) => (
              <div key={site.id} className="site">
                <span className="site-name" aria-hidden="true">
                  {site.name}
                </span>
                <PageTree node={site.rootPage} site={site.name} selected={pageId} onSelect={setPageId} />
              </div>
            ))}
          </fieldset>
          <div className="field">
            <label htmlFor="language">Language</label>
            <select
              id="language"
              value={languageId}
              disabled={languages.length === 0}
              onChange={(e) => setLanguageId(Number(e.target.value))}
            >
              {languages.map((l) => (
                <option key={l.id} value={l.languageId}>
                  {l.title} ({l.isoCode})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="skill">Skill (optional)</label>
            <select id="skill" value={skill} onChange={(e) => setSkill(e.target.value)}>
              <option value="">No skill</option>
              {data.skills.map((s) => (
                <option key={s.identifier} value={s.identifier}>
                  {s.name}
                  {s.isProcess ? ' (guided process)' : ''}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Start conversation</button>
        </form>
      )}
    </>
  );
}

function PageTree({
  node,
  site,
  selected,
  onSelect,
}: {
  node: PageNode;
  site: string;
  selected: string;
  onSelect: (id: string) => void;
}) {
  return (
    <ul>
      <li>
        <label className="choice">
          <input
            type="radio"
            name="page"
            value={node.id}
            checked={selected === node.id}
            onChange={() => onSelect(node.id)}
            aria-label={`${node.title} (${node.slug}, ${site})`}
          />
          {node.title} <span className="slug">{node.slug}</span>
        </label>
        {(node.children ?? []).map((child) => (
          <PageTree key={child.id} node={child} site={site} selected={selected} onSelect={onSelect} />
        ))}
      </li>
    </ul>
  );
}
