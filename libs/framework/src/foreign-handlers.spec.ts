import { EventPattern, MessagePattern, Transport } from '@nestjs/microservices';
import { Command } from './decorators/command.decorator';
import { Query } from './decorators/query.decorator';
import { ForeignHandlerError, foreignHandlerError, foreignHandlersOf } from './foreign-handlers';
import { ONCE_TRANSPORT } from './once.constants';

class Notifications {
  @EventPattern('user.created')
  onUserCreated(): void {}

  @EventPattern({ topic: 'audit', kind: 'login' }, ONCE_TRANSPORT)
  onLogin(): void {}

  @MessagePattern('user.get')
  getUser(): void {}

  @EventPattern('tcp.only', Transport.TCP)
  onTcpOnly(): void {}

  @Command('user.create')
  create(): void {}

  @Query('user.find')
  find(): void {}
}

/** A subclass: NestJS registers inherited handlers too. */
class MoreNotifications extends Notifications {}

describe('foreignHandlersOf', () => {
  it('finds the message and event handlers NestJS binds to the once transport, and no once handler', () => {
    expect(foreignHandlersOf([new MoreNotifications()])).toEqual([
      {
        owner: 'MoreNotifications.onUserCreated',
        routes: ['user.created'],
        kind: 'event',
        declaredForOnce: false,
      },
      {
        owner: 'MoreNotifications.onLogin',
        routes: ['{"kind":"login","topic":"audit"}'],
        kind: 'event',
        declaredForOnce: true,
      },
      {
        owner: 'MoreNotifications.getUser',
        routes: ['user.get'],
        kind: 'message',
        declaredForOnce: false,
      },
    ]);
  });
});

describe('foreignHandlerError', () => {
  const found = foreignHandlersOf([new Notifications()]);

  it('refuses every foreign handler when the once transport is the only one, saying what to use instead', () => {
    const error = foreignHandlerError(found, 0);
    expect(error).toBeInstanceOf(ForeignHandlerError);
    expect(error?.code).toBe('NOT_A_ONCE_HANDLER');
    expect(error?.message).toBe(
      [
        'the once transport serves only @Command and @Query handlers; these handlers are bound to it:',
        "- Notifications.onUserCreated: @EventPattern('user.created') is bound to the once transport. On once, events are journaled commands: use @Command('user.created') (a client's emit() sends it exactly once and completes when it is committed), or bind the handler to another transport (@EventPattern('user.created', Transport.TCP)) in a hybrid app.",
        '- Notifications.onLogin: @EventPattern({"kind":"login","topic":"audit"}) is bound to the once transport. On once, events are journaled commands: use @Command({"kind":"login","topic":"audit"}) (a client\'s emit() sends it exactly once and completes when it is committed), or bind the handler to another transport (@EventPattern({"kind":"login","topic":"audit"}, Transport.TCP)) in a hybrid app.',
        "- Notifications.getUser: @MessagePattern('user.get') is bound to the once transport: use @Command('user.get') for a change (journaled, applied exactly once) or @Query('user.get') for a read, or bind the handler to another transport (@MessagePattern('user.get', Transport.TCP)) in a hybrid app.",
      ].join('\n'),
    );
  });

  it('lets handlers declared without a transport be when the app has another transport, and refuses those declared for once', () => {
    const error = foreignHandlerError(found, 1);
    expect(error?.handlers.map((handler) => handler.owner)).toEqual(['Notifications.onLogin']);
    expect(error?.message).toMatch(/; this handler is bound to it:\n- Notifications\.onLogin: /);
    expect(foreignHandlerError(found.slice(0, 1), 1)).toBeUndefined();
  });
});
