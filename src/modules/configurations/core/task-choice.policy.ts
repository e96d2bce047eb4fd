import { DEFAULT_TASK_IDENTIFIER } from './configuration';

/** What the choice needs to know about a Task. */
export interface TaskMapping {
  readonly id: number;
  readonly identifier: string;
  readonly priority: number;
  readonly groupIds: readonly number[];
}

/**
 * The chat's Task for a user (docs/chat-and-skills.md): among the Tasks mapped to
 * one of the user's groups, the highest priority wins, then the lowest Task id; a user
 * matching none gets the Task with identifier `default`. Null when there is no match and no
 * `default` Task (the caller decides what that means for the chat).
 */
export function chooseTask<T extends TaskMapping>(
  tasks: readonly T[],
  userGroupIds: readonly number[],
): T | null {
  const mine = new Set(userGroupIds);
  let best: T | null = null;
  for (const task of tasks) {
    if (!task.groupIds.some((g) => mine.has(g))) continue;
    if (!best || task.priority > best.priority || (task.priority === best.priority && task.id < best.id)) {
      best = task;
    }
  }
  return best ?? tasks.find((t) => t.identifier === DEFAULT_TASK_IDENTIFIER) ?? null;
}
