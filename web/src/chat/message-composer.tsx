import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { SkillCatalogueEntry } from '../api/types';

interface Props {
  catalogue: readonly SkillCatalogueEntry[];
  /** The skill the conversation has, shown above the input with a remove button. */
  skill: { identifier: string; name: string; isProcess: boolean } | null;
  sendDisabled: boolean;
  onSend: (text: string) => Promise<boolean>;
  onPickSkill: (identifier: string) => void;
  onRemoveSkill: () => void;
}

/** A slash, then anything but whitespace: the skill catalogue opens. */
const SLASH_QUERY = /^\/(\S*)$/;

/** The catalogue entries matching what follows the slash. */
export function matchingSkills(
  catalogue: readonly SkillCatalogueEntry[],
  query: string,
): SkillCatalogueEntry[] {
  const q = query.toLowerCase();
  return catalogue.filter((s) => s.identifier.toLowerCase().includes(q) || s.name.toLowerCase().includes(q));
}

/**
 * The message input. Typing `/` with no space after it opens the skill catalogue as a listbox
 * on the input (ARIA combobox: Down / Up move, Enter or Tab pick, Escape closes); picking sets
 * the conversation's skill and sends nothing. Enter with the list closed sends the message.
 */
export function MessageComposer({
  catalogue,
  skill,
  sendDisabled,
  onSend,
  onPickSkill,
  onRemoveSkill,
}: Props) {
  const id = useId();
  const listId = `${id}-skills`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState('');
  const [active, setActive] = useState(0);
  const [dismissedFor, setDismissedFor] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');

  const slash = SLASH_QUERY.exec(value);
  const options = slash ? matchingSkills(catalogue, slash[1] ?? '') : [];
  const open = !!slash && dismissedFor !== value && options.length > 0;
  const activeIndex = Math.min(active, options.length - 1);
  const optionId = (i: number) => `${id}-skill-${i}`;

  const pick = (entry: SkillCatalogueEntry) => {
    setValue('');
    setActive(0);
    setAnnouncement(`Skill ${entry.name} picked.`);
    onPickSkill(entry.identifier);
    inputRef.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (!open) return;
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        setActive((activeIndex + 1) % options.length);
        break;
      case 'ArrowUp':
        event.preventDefault();
        setActive((activeIndex - 1 + options.length) % options.length);
        break;
      case 'Enter':
      case 'Tab': {
        const entry = options[activeIndex];
        if (!entry) return;
        event.preventDefault();
        pick(entry);
        break;
      }
      case 'Escape':
        event.preventDefault();
        setDismissedFor(value);
        break;
      default:
        break;
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = value.trim();
    if (!text || sendDisabled) return;
    if (await onSend(text)) setValue('');
  };

  return (
    <form className="composer" onSubmit={(e) => void submit(e)}>
      {skill && (
        <div className="skill-chip">
          <span>
            Skill: <strong>{skill.name}</strong>
            {skill.isProcess ? ' (guided process)' : ''}
          </span>
          <button
            type="button"
            aria-label={`Remove skill ${skill.name}`}
            onClick={() => {
              onRemoveSkill();
              setAnnouncement(`Skill ${skill.name} removed.`);
              inputRef.current?.focus();
            }}
          >
            ×
          </button>
        </div>
      )}
      <div className="composer-row">
        <label htmlFor={`${id}-input`} className="visually-hidden">
          Message
        </label>
        <div className="combobox">
          <input
            id={`${id}-input`}
            ref={inputRef}
            type="text"
            role="combobox"
            autoComplete="off"
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listId}
            aria-activedescendant={open ? optionId(activeIndex) : undefined}
            aria-describedby={`${id}-hint`}
            placeholder="Write a message, or / for a skill"
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              setActive(0);
              setDismissedFor(null);
            }}
            onKeyDown={onKeyDown}
          />
          <ul id={listId} role="listbox" aria-label="Skills" className="listbox" hidden={!open}>
            {options.map((entry, i) => (
              <li
                key={entry.identifier}
                id={optionId(i)}
                role="option"
                aria-selected={i === activeIndex}
                className={i === activeIndex ? 'option active' : 'option'}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => pick(entry)}
              >
                <span className="option-name">/{entry.identifier}</span> {entry.name}
                {entry.isProcess ? ' (guided process)' : ''}
                {entry.description && <span className="option-description"> {entry.description}</span>}
              </li>
            ))}
          </ul>
        </div>
        <button type="submit" disabled={sendDisabled}>
          Send
        </button>
      </div>
      <p id={`${id}-hint`} className="hint">
        Type / to pick a skill.
        {slash && options.length === 0 ? ' No skill matches.' : ''}
      </p>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </form>
  );
}
