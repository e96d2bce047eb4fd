import type { AppConfig } from '../../../config/app-config';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { EventBus } from '../../../platform/pubsub/event-bus';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationEvents, conversationTopic, type ConversationEventPayload } from './conversation-events';

const RUN = '00000000-0000-4000-8000-000000000001';
const owner = { id: 7, isAdmin: true } as unknown as AuthUser;

/** `n` events of the stream, or fewer when none comes for a while. */
async function take(
  stream: AsyncIterator<ConversationEventPayload>,
  n: number,
): Promise<ConversationEventPayload[]> {
  const got: ConversationEventPayload[] = [];
  while (got.length < n) {
    const next = await Promise.race([
      stream.next(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 200)),
    ]);
    if (!next || next.done) break;
    got.push(next.value);
  }
  return got;
}

describe('conversation events: the answer of the run it follows', () => {
  let bus: EventBus;
  beforeEach(() => {
    bus = new EventBus({} as AppConfig);
  });
  afterEach(() => bus.onApplicationShutdown());

  it('relays no delta of a run it stopped following, even one that arrived before it stopped', async () => {
    const events = new ConversationEvents(
      bus,
      { reload: () => Promise.resolve(owner), refresh: () => Promise.resolve(owner) } as never,
      { findRunById: () => Promise.resolve(null) } as never,
      { ask: () => Promise.resolve() } as never,
    );
    const conversation = {
      id: 'c1',
      ownerId: 7,
      status: 'PROCESSING',
      activeRunId: RUN,
    } as ConversationEntity;
    const stream = events.open(owner, conversation);
    const first = stream.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const delta = (offset: number, text: string) => ({
      type: 'TEXT_DELTA',
      runId: RUN,
      delta: { messageId: RUN, turn: 0, offset, text, final: false },
    });
    void bus.publish(`run.trace.${RUN}`, delta(0, 'Hello'));
    expect((await first).value).toMatchObject({ kind: 'TEXT_DELTA', delta: { text: 'Hello' } });
    // why: the run was stopped: the conversation leaves it, and a chunk its segment flushed
    // meanwhile is already on its way (queued behind the conversation's event).
    void bus.publish(conversationTopic('c1'), {
      kind: 'STATUS',
      conversationId: 'c1',
      status: 'IDLE',
      activeRunId: null,
    });
    void bus.publish(`run.trace.${RUN}`, delta(5, ' world'));
    const rest = await take(stream, 4);
    expect(rest.map((e) => [e.kind, e.delta?.text ?? null, e.delta?.final ?? null])).toEqual([
      ['TEXT_DELTA', '', true],
      ['STATUS', null, null],
    ]);
    await stream.return?.();
  });
});
