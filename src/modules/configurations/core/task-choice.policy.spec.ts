import { chooseTask, TaskMapping } from './task-choice.policy';

const task = (id: number, identifier: string, priority: number, groupIds: number[]): TaskMapping => ({
  id,
  identifier,
  priority,
  groupIds,
});

describe('chooseTask', () => {
  const fallback = task(1, 'default', 0, []);

  it('gives a user matching no mapping the default Task', () => {
    expect(chooseTask([fallback, task(2, 'x', 10, [7])], [3])?.identifier).toBe('default');
    expect(chooseTask([fallback, task(2, 'x', 10, [7])], [])?.identifier).toBe('default');
  });

  it('picks the mapping with the highest priority among the user groups', () => {
    const tasks = [fallback, task(2, 'low', 1, [3]), task(3, 'high', 9, [4]), task(4, 'other', 99, [5])];
    expect(chooseTask(tasks, [3, 4])?.identifier).toBe('high');
  });

  it('breaks a priority tie by the lowest Task id, whatever the input order', () => {
    const tasks = [task(9, 'nine', 5, [3]), fallback, task(4, 'four', 5, [3])];
    expect(chooseTask(tasks, [3])?.identifier).toBe('four');
  });

  it('prefers a matching mapping even over a default Task that is itself mapped lower', () => {
    const tasks = [task(1, 'default', 0, [3]), task(2, 'mapped', 1, [3])];
    expect(chooseTask(tasks, [3])?.identifier).toBe('mapped');
  });

  it('answers null without a match and without a default Task', () => {
    expect(chooseTask([task(2, 'x', 1, [7])], [3])).toBeNull();
  });
});
