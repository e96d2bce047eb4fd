// Webhooks (docs/webhooks.md): endpoints, the outbox of deliveries (one row per event and
// endpoint, written in the transaction of the change it reports) and the log of their tries.
import { MigrationInterface, QueryRunner } from 'typeorm';

export class SendWebhooksFromAnOutbox1796170000000 implements MigrationInterface {
  name = 'SendWebhooksFromAnOutbox1796170000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "webhook_endpoint" ("id" uuid NOT NULL, "url" text NOT NULL, "event_types" text array NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "secret" character varying(200) NOT NULL, "description" character varying(200) NOT NULL DEFAULT '', "created_by" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6c98112122b2b8a4f3984d2efa8" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "webhook_delivery" ("id" uuid NOT NULL, "seq" BIGSERIAL NOT NULL, "endpoint_id" uuid NOT NULL, "event_id" uuid NOT NULL, "event_type" character varying(64) NOT NULL, "run_id" uuid, "payload" jsonb NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'PENDING', "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "locked_until" TIMESTAMP WITH TIME ZONE, "replay_of" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_b1ae290239a778f12399db91354" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "webhook_delivery_pending_run_idx" ON "webhook_delivery"  ("endpoint_id", "run_id", "seq") WHERE "status" = 'PENDING'`);
    await queryRunner.query(`CREATE INDEX "webhook_delivery_event_idx" ON "webhook_delivery"  ("event_id") `);
    await queryRunner.query(`CREATE INDEX "webhook_delivery_endpoint_seq_idx" ON "webhook_delivery"  ("endpoint_id", "seq") `);
    await queryRunner.query(`CREATE INDEX "webhook_delivery_due_idx" ON "webhook_delivery"  ("next_attempt_at") WHERE "status" = 'PENDING'`);
    await queryRunner.query(`CREATE TABLE "webhook_attempt" ("id" BIGSERIAL NOT NULL, "delivery_id" uuid NOT NULL, "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "status_code" integer, "error" character varying(500), "duration_ms" integer NOT NULL, CONSTRAINT "PK_e4ff77b66cdd20591ba6189a1f9" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "webhook_attempt_delivery_idx" ON "webhook_attempt"  ("delivery_id", "id") `);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" ADD CONSTRAINT "FK_f53f5aec02217a54927b13e39d9" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`ALTER TABLE "webhook_attempt" ADD CONSTRAINT "FK_d7ed48c4841159bfd6bdee166ea" FOREIGN KEY ("delivery_id") REFERENCES "webhook_delivery"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    // why: every change of the endpoints (API, CLI or SQL) tells the instances' caches of
    // enabled endpoints (EnabledEndpoints) at its commit.
    await queryRunner.query(`CREATE FUNCTION "notify_webhooks_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('countersign_webhooks', '');
  RETURN NULL;
END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "webhook_endpoint_changed" AFTER INSERT OR UPDATE OR DELETE ON "webhook_endpoint" FOR EACH STATEMENT EXECUTE FUNCTION "notify_webhooks_changed"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "webhook_endpoint_changed" ON "webhook_endpoint"`);
    await queryRunner.query(`DROP FUNCTION "notify_webhooks_changed"()`);
    await queryRunner.query(`ALTER TABLE "webhook_attempt" DROP CONSTRAINT "FK_d7ed48c4841159bfd6bdee166ea"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP CONSTRAINT "FK_f53f5aec02217a54927b13e39d9"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_attempt_delivery_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_attempt"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_delivery_due_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_delivery_endpoint_seq_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_delivery_event_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_delivery_pending_run_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_delivery"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoint"`);
  }
}
