import { shapeOf } from './query-counter';

describe('shapeOf', () => {
  it('labels a statement by its verb and table', () => {
    expect(shapeOf('SELECT "r"."id" FROM "run" "r" WHERE "r"."id" = $1')).toBe('SELECT run');
    expect(shapeOf('UPDATE run SET status = $2 WHERE id = $1')).toBe('UPDATE run');
    expect(shapeOf('INSERT INTO "decision"("id") VALUES ($1)')).toBe('INSERT decision');
    expect(shapeOf('START TRANSACTION')).toBe('START');
    expect(shapeOf('COMMIT')).toBe('COMMIT');
    expect(shapeOf("SELECT pg_notify('countersign_work', '')")).toBe('SELECT pg_notify');
  });

  it('names the top-level table, not one of a sub-select in the select list', () => {
    const sql = `SELECT t.id, (SELECT json_agg(g) FROM group_member m WHERE m.user_id = u.id) AS groups
      FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE t.token_hash = $1`;
    expect(shapeOf(sql)).toBe('SELECT api_token');
  });

  it('labels a statement with a CTE by both of its parts', () => {
    const append = `WITH r AS (
         UPDATE run SET step_count = step_count + 1 WHERE id = $1 RETURNING step_count)
       INSERT INTO run_step (run_id, sequence) SELECT $1, r.step_count FROM r RETURNING sequence`;
    expect(shapeOf(append)).toBe('WITH UPDATE run; INSERT run_step');
    const claim = `WITH due AS MATERIALIZED (SELECT id FROM run WHERE status = 'X' FOR UPDATE SKIP LOCKED LIMIT 1)
      UPDATE run SET status = 'RUNNING' FROM due WHERE run.id = due.id RETURNING run.id`;
    expect(shapeOf(claim)).toBe('WITH SELECT run; UPDATE run');
  });
});
