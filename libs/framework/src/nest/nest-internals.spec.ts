import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Observable } from 'rxjs';
import {
  type ArgumentsHost,
  Body,
  Catch,
  Controller,
  type ExceptionFilter,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Param,
  Post,
  Req,
  RequestMethod,
  Res,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import {
  ApplicationConfig,
  DiscoveryModule,
  DiscoveryService,
  ModuleRef,
  ModulesContainer,
  NestContainer,
  NestFactory,
} from '@nestjs/core';
import {
  type CustomTransportStrategy,
  Ctx,
  EventPattern,
  MessagePattern,
  Payload,
  Server,
  Transport,
} from '@nestjs/microservices';

/**
 * Every NestJS internal once relies on (see nest-internals.ts), with the
 * shape once relies on (checked through NestJS's public decorators and
 * classes where it can be): a NestJS release that moves or changes one fails
 * here, naming the symbol and its path, before anything else breaks in a
 * less legible way. The table must list every deep import and every
 * non-public field the adapter reads (the last test checks it does).
 *
 * Each internal is loaded from its path here, not through the adapter: a
 * path that is gone fails its own row, not the whole file.
 *
 * The normal suite runs it against the versions package-lock.json pins (the
 * highest tested); `npm run test:nest-lowest` against the
 * lowest, with ONCE_NEST_EXPECTED_VERSIONS naming the versions it installed.
 * The first test checks they are the ones loaded.
 */

/** A NestJS internal: `symbol` as exported at `path` (or `Class.field`, a non-public field). */
interface NestInternal {
  readonly path: string;
  readonly symbol: string;
  /** Throws, saying what differs, when `value` has not the shape once relies on. */
  readonly check: (value: unknown) => void | Promise<void>;
}

const ADAPTER = join(__dirname, 'nest-internals.ts');

/** `symbol` of the module at `path`, loaded as the application would load it. */
function load(path: string, symbol: string): unknown {
  const loaded = jest.requireActual<Record<string, unknown>>(path);
  if (!(symbol in loaded)) throw new Error(`${path} exports no ${symbol}`);
  return loaded[symbol];
}

function expectShape(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

function expectFunction(value: unknown, what: string): void {
  expectShape(typeof value === 'function', `${what} is ${typeof value}, not a function`);
}

/** A class decorated by `decorate` (as a class decorator), to read what it wrote under `key`. */
function writtenOnClass(decorate: ClassDecorator, key: unknown): unknown {
  class Target {}
  decorate(Target);
  return Reflect.getMetadata(key, Target);
}

class Guard {
  canActivate() {
    return true;
  }
}
class Interceptor {
  intercept() {
    return undefined;
  }
}
class Pipe {
  transform(value: unknown) {
    return value;
  }
}

class Caught extends Error {}

/** A filter that records what it caught and its host's type. */
@Catch(Caught)
class RecordingFilter implements ExceptionFilter {
  readonly caught: [unknown, string][] = [];
  catch(exception: unknown, host: ArgumentsHost) {
    this.caught.push([exception, host.getType()]);
    return undefined;
  }
}

const methodFilter = new RecordingFilter();

class Handlers {
  @MessagePattern('probe.message')
  message(@Payload() _data: unknown, @Ctx() _context: unknown) {
    return undefined;
  }

  @EventPattern('probe.event')
  event() {
    return undefined;
  }

  @MessagePattern({ cmd: 'probe' }, Transport.TCP, { onceKind: 'probe' })
  declared() {
    return undefined;
  }

  @UseFilters(methodFilter)
  failing() {
    return undefined;
  }
}
const handlers = Handlers.prototype as unknown as Record<string, object>;

@Controller('probe')
class RouteHandlers {
  @Post('route')
  @HttpCode(202)
  route(
    @Body() _body: unknown,
    @Param('id') _id: string,
    @Req() _req: unknown,
    @Res() _res: unknown,
  ) {
    return undefined;
  }
}
const routes = RouteHandlers.prototype as unknown as Record<string, object>;

/** A transport strategy that serves nothing: a microservice to find among the RPC targets. */
class ProbeStrategy extends Server implements CustomTransportStrategy {
  listen(callback: () => void) {
    callback();
  }
  close() {}
  on() {}
  unwrap<T>(): T {
    throw new Error('nothing to unwrap');
  }
}

@Injectable()
class Probe {
  constructor(@Inject(ModuleRef) readonly moduleRef: ModuleRef) {}
}

@Controller()
class ProbeController {}

@Module({ imports: [DiscoveryModule], providers: [Probe], controllers: [ProbeController] })
class ProbeModule {}

/** Runs `body` in a NestJS application context of {@link ProbeModule}. */
async function inApplication(
  body: (app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>) => void,
) {
  const app = await NestFactory.createApplicationContext(ProbeModule, { logger: false });
  try {
    body(app);
  } finally {
    await app.close();
  }
}

const COMMON_CONSTANTS = '@nestjs/common/constants';
const PATTERNS = '@nestjs/microservices/constants';

const INTERNALS: readonly NestInternal[] = [
  {
    path: '@nestjs/common/constants',
    symbol: 'GUARDS_METADATA',
    check: (key) =>
      expectShape(
        (writtenOnClass(UseGuards(Guard), key) as unknown[])?.[0] === Guard,
        '@UseGuards(Guard) writes no [Guard] under it',
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'INTERCEPTORS_METADATA',
    check: (key) =>
      expectShape(
        (writtenOnClass(UseInterceptors(Interceptor), key) as unknown[])?.[0] === Interceptor,
        '@UseInterceptors(Interceptor) writes no [Interceptor] under it',
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'PIPES_METADATA',
    check: (key) =>
      expectShape(
        (writtenOnClass(UsePipes(Pipe), key) as unknown[])?.[0] === Pipe,
        '@UsePipes(Pipe) writes no [Pipe] under it',
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'EXCEPTION_FILTERS_METADATA',
    check: (key) =>
      expectShape(
        (Reflect.getMetadata(key, handlers.failing) as unknown[])?.[0] === methodFilter,
        '@UseFilters(filter) writes no [filter] under it',
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'ROUTE_ARGS_METADATA',
    check: (key) => {
      const layout = Reflect.getMetadata(key, Handlers, 'message') as
        Record<string, { index: number }> | undefined;
      const entries = Object.entries(layout ?? {});
      expectShape(
        entries.length === 2 && entries.every(([type, arg]) => type.endsWith(`:${arg.index}`)),
        `@Payload() @Ctx() write no { '<type>:<index>': { index } } under it, but ${JSON.stringify(layout)}`,
      );
    },
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'PATH_METADATA',
    check: (key) =>
      expectShape(
        Reflect.getMetadata(key, RouteHandlers) === 'probe' &&
          Reflect.getMetadata(key, routes.route) === 'route',
        "@Controller('probe') and @Post('route') do not write their paths under it",
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'METHOD_METADATA',
    check: (key) =>
      expectShape(
        Reflect.getMetadata(key, routes.route) === RequestMethod.POST,
        '@Post() does not write RequestMethod.POST under it',
      ),
  },
  {
    path: '@nestjs/common/constants',
    symbol: 'HTTP_CODE_METADATA',
    check: (key) =>
      expectShape(
        Reflect.getMetadata(key, routes.route) === 202,
        '@HttpCode(202) does not write 202 under it',
      ),
  },
  {
    path: '@nestjs/common/enums/route-paramtypes.enum',
    symbol: 'RouteParamtypes',
    check: (enumeration) => {
      const { BODY, PARAM, REQUEST, RESPONSE } = enumeration as Record<string, unknown>;
      const layout = Reflect.getMetadata(
        load(COMMON_CONSTANTS, 'ROUTE_ARGS_METADATA'),
        RouteHandlers,
        'route',
      ) as Record<string, unknown>;
      const expected = [BODY, PARAM, REQUEST, RESPONSE].map(
        (type, index) => `${String(type)}:${index}`,
      );
      expectShape(
        expected.every((key) => key in layout),
        `@Body() @Param() @Req() @Res() are not written as BODY:0, PARAM:1, REQUEST:2, RESPONSE:3, but ${Object.keys(layout).join(', ')}`,
      );
    },
  },
  {
    path: '@nestjs/microservices/enums/rpc-paramtype.enum',
    symbol: 'RpcParamtype',
    check: (enumeration) => {
      const { PAYLOAD, CONTEXT } = enumeration as Record<string, unknown>;
      const layout = Reflect.getMetadata(
        load(COMMON_CONSTANTS, 'ROUTE_ARGS_METADATA'),
        Handlers,
        'message',
      ) as Record<string, unknown>;
      expectShape(
        typeof PAYLOAD === 'number' && typeof CONTEXT === 'number',
        `PAYLOAD and CONTEXT are ${typeof PAYLOAD} and ${typeof CONTEXT}, not numbers`,
      );
      expectShape(
        `${String(PAYLOAD)}:0` in layout && `${String(CONTEXT)}:1` in layout,
        `@Payload() and @Ctx() are not written as PAYLOAD:0 and CONTEXT:1, but ${Object.keys(layout).join(', ')}`,
      );
    },
  },
  {
    path: '@nestjs/microservices/enums/pattern-handler.enum',
    symbol: 'PatternHandler',
    check: (enumeration) => {
      const { MESSAGE, EVENT } = enumeration as Record<string, unknown>;
      const key = load(PATTERNS, 'PATTERN_HANDLER_METADATA');
      expectShape(
        MESSAGE !== undefined && Reflect.getMetadata(key, handlers.message) === MESSAGE,
        '@MessagePattern does not write MESSAGE under PATTERN_HANDLER_METADATA',
      );
      expectShape(
        EVENT !== undefined && Reflect.getMetadata(key, handlers.event) === EVENT,
        '@EventPattern does not write EVENT under PATTERN_HANDLER_METADATA',
      );
    },
  },
  {
    path: '@nestjs/microservices/constants',
    symbol: 'PATTERN_METADATA',
    check: (key) => {
      const patterns = Reflect.getMetadata(key, handlers.message) as unknown;
      expectShape(
        JSON.stringify(patterns) === '["probe.message"]',
        `@MessagePattern('probe.message') writes ${JSON.stringify(patterns)} under it, not ['probe.message']`,
      );
    },
  },
  {
    path: '@nestjs/microservices/constants',
    symbol: 'PATTERN_HANDLER_METADATA',
    check: (key) =>
      expectShape(
        Reflect.getMetadata(key, handlers.message) !== undefined &&
          Reflect.getMetadata(key, handlers.failing) === undefined,
        '@MessagePattern writes nothing under it, or a plain method has it',
      ),
  },
  {
    path: '@nestjs/microservices/constants',
    symbol: 'PATTERN_EXTRAS_METADATA',
    check: (key) => {
      const extras = Reflect.getMetadata(key, handlers.declared) as Record<string, unknown>;
      expectShape(
        extras?.onceKind === 'probe',
        `@MessagePattern(pattern, transport, extras) writes ${JSON.stringify(extras)} under it, not the extras`,
      );
    },
  },
  {
    path: '@nestjs/microservices/constants',
    symbol: 'TRANSPORT_METADATA',
    check: (key) =>
      expectShape(
        Reflect.getMetadata(key, handlers.declared) === Transport.TCP &&
          Reflect.getMetadata(key, handlers.message) === undefined,
        '@MessagePattern(pattern, transport) writes no transport under it, or one without a transport does',
      ),
  },
  {
    path: '@nestjs/microservices/constants',
    symbol: 'NO_MESSAGE_HANDLER',
    check: (sentence) =>
      expectShape(
        typeof sentence === 'string' && /^There is no matching message handler/.test(sentence),
        `it is ${JSON.stringify(sentence)}, not NestJS's sentence for a pattern no handler claims`,
      ),
  },
  {
    path: '@nestjs/microservices/utils',
    symbol: 'transformPatternToRoute',
    check: (transform) => {
      expectFunction(transform, 'it');
      const route = (transform as (pattern: unknown) => unknown)({ cmd: 'sum', a: 1 });
      expectShape(
        route === '{"a":1,"cmd":"sum"}',
        `it routes { cmd: 'sum', a: 1 } as ${String(route)}, not its JSON with sorted keys`,
      );
      expectShape(
        (transform as (pattern: unknown) => unknown)('ledger.deposit') === 'ledger.deposit',
        'it does not route a string pattern as itself',
      );
    },
  },
  {
    path: '@nestjs/microservices/context/exception-filters-context',
    symbol: 'ExceptionFiltersContext',
    check: (Context) => {
      expectFunction(Context, 'it');
      const global = new RecordingFilter();
      const config = new ApplicationConfig();
      config.useGlobalFilters(global);
      // The adapter gives it a container of which it reads getModules() alone.
      const container = { getModules: () => new ModulesContainer() };
      const context = new (
        Context as new (
          container: unknown,
          config: ApplicationConfig,
        ) => { create(instance: object, method: object, module: string): unknown }
      )(container, config);
      const instance = new Handlers();
      for (const [method, filter] of [
        ['failing', methodFilter],
        ['message', global],
      ] as const) {
        const handler = context.create(instance, handlers[method], '') as {
          invokeCustomFilters?: (exception: unknown, host: ArgumentsHost) => unknown;
        };
        expectFunction(handler?.invokeCustomFilters, `create(...).invokeCustomFilters`);
        const host = { getType: () => 'rpc' } as ArgumentsHost;
        const exception = new Caught(method);
        handler.invokeCustomFilters!(exception, host);
        expectShape(
          filter.caught.some(([caught, type]) => caught === exception && type === 'rpc'),
          `the filters create() builds for ${method} do not reach its ${filter === global ? 'global' : 'method'} filter`,
        );
      }
    },
  },
  {
    path: '@nestjs/microservices/exceptions/rpc-exceptions-handler',
    symbol: 'RpcExceptionsHandler',
    check: (Handler) => {
      expectFunction(Handler, 'it');
      expectFunction(
        (Handler as { prototype: Record<string, unknown> }).prototype.invokeCustomFilters,
        'RpcExceptionsHandler.prototype.invokeCustomFilters',
      );
    },
  },
  {
    path: '@nestjs/core/helpers/execution-context-host',
    symbol: 'ExecutionContextHost',
    check: (Host) => {
      expectFunction(Host, 'it');
      const handler = () => undefined;
      const host = new (
        Host as new (
          args: unknown[],
          classRef: unknown,
          handler: unknown,
        ) => {
          setType(type: string): void;
          getType(): string;
          getClass(): unknown;
          getHandler(): unknown;
          switchToRpc(): { getData(): unknown; getContext(): unknown };
        }
      )(['data', 'context'], Handlers, handler);
      host.setType('rpc');
      const rpc = host.switchToRpc();
      expectShape(
        host.getType() === 'rpc' &&
          host.getClass() === Handlers &&
          host.getHandler() === handler &&
          rpc.getData() === 'data' &&
          rpc.getContext() === 'context',
        'new ExecutionContextHost([data, context], class, handler) typed rpc does not give them back',
      );
    },
  },
  {
    path: '@nestjs/core/injector/instance-wrapper',
    symbol: 'InstanceWrapper',
    check: async (Wrapper) => {
      expectFunction(Wrapper, 'it');
      await inApplication((app) => {
        const wrapper = app
          .get(DiscoveryService)
          .getControllers()
          .find((found) => found.metatype === ProbeController);
        expectShape(
          wrapper instanceof (Wrapper as abstract new () => unknown),
          'DiscoveryService does not give InstanceWrappers',
        );
        const { instance, name, host } = wrapper!;
        expectShape(
          instance instanceof ProbeController &&
            name === 'ProbeController' &&
            wrapper!.isDependencyTreeStatic() &&
            typeof host?.token === 'string' &&
            host.injectables instanceof Map,
          'a controller wrapper has no instance, name, isDependencyTreeStatic(), host.token or host.injectables',
        );
      });
    },
  },
  {
    path: '@nestjs/core',
    symbol: 'ModuleRef.container',
    check: async () => {
      await inApplication((app) => {
        const { moduleRef } = app.get(Probe);
        const field = (moduleRef as unknown as { container?: unknown }).container;
        expectShape(
          field instanceof NestContainer,
          `a ModuleRef's container field is ${typeof field}, not the NestContainer`,
        );
        const container = field as NestContainer;
        expectShape(
          container.applicationConfig instanceof ApplicationConfig &&
            typeof container.getHttpAdapterRef === 'function',
          'the NestContainer has no applicationConfig or getHttpAdapterRef()',
        );
      });
    },
  },
  {
    path: '@nestjs/core',
    symbol: 'ModulesContainer.getRpcTargetRegistry',
    check: async () => {
      const strategy = new ProbeStrategy();
      const app = await NestFactory.createMicroservice(ProbeModule, { strategy, logger: false });
      try {
        const modules = app.get<unknown, Record<string, unknown>>(ModulesContainer);
        expectFunction(modules.getRpcTargetRegistry, 'ModulesContainer.getRpcTargetRegistry');
        const targets: unknown[] = [];
        (modules.getRpcTargetRegistry as () => Observable<unknown>)
          .call(modules)
          .subscribe((target) => targets.push(target))
          .unsubscribe();
        expectShape(
          targets.includes(strategy),
          'it does not replay the strategy of a microservice NestJS created (@nestjs/microservices registers its servers there)',
        );
      } finally {
        await app.close();
      }
    },
  },
];

/**
 * The versions of @nestjs/common, core and microservices this run must load:
 * those ONCE_NEST_EXPECTED_VERSIONS names (JSON, set by
 * `npm run test:nest-lowest`), else those package-lock.json pins (the
 * highest end of the tested range).
 */
function expectedVersions(): Record<string, string> {
  const named = process.env.ONCE_NEST_EXPECTED_VERSIONS;
  if (named) return JSON.parse(named) as Record<string, string>;
  const lock = JSON.parse(
    readFileSync(join(__dirname, '../../../../package-lock.json'), 'utf8'),
  ) as {
    packages: Record<string, { version: string }>;
  };
  return Object.fromEntries(
    ['@nestjs/common', '@nestjs/core', '@nestjs/microservices'].map((name) => [
      name,
      lock.packages[`node_modules/${name}`].version,
    ]),
  );
}

/** `path` + `symbol` of a table row; `ModuleRef.container` is read off its class. */
function valueOf({ path, symbol }: NestInternal): unknown {
  const [exported] = symbol.split('.');
  return load(path, exported);
}

describe('the NestJS internals once relies on', () => {
  it('are those of the NestJS versions under test: those package-lock.json pins, or those ONCE_NEST_EXPECTED_VERSIONS names', () => {
    const versions = expectedVersions();
    const loaded = Object.fromEntries(
      Object.keys(versions).map((name) => [
        name,
        jest.requireActual<{ version: string }>(`${name}/package.json`).version,
      ]),
    );
    console.log(`NestJS versions under test: ${JSON.stringify(loaded)}`);
    expect(loaded).toEqual(versions);
  });

  it.each(INTERNALS.map((internal) => [`${internal.path} ${internal.symbol}`, internal] as const))(
    '%s',
    async (_name, internal) => {
      let value: unknown;
      try {
        value = valueOf(internal);
      } catch (error) {
        throw new Error(
          `NestJS moved ${internal.path} ${internal.symbol}: ${(error as Error).message}. ` +
            'Find where it went and update libs/framework/src/nest/nest-internals.ts.',
        );
      }
      try {
        await internal.check(value);
      } catch (error) {
        throw new Error(
          `NestJS changed ${internal.path} ${internal.symbol}: ${(error as Error).message}. ` +
            'once relies on that shape (see libs/framework/src/nest/nest-internals.ts).',
        );
      }
    },
  );

  it('are all in the table: every deep import and non-public field of the adapter', () => {
    const source = readFileSync(ADAPTER, 'utf8');
    const used: string[] = [];
    for (const [, names, path] of source.matchAll(
      /import\s*\{([^}]*)\}\s*from\s*'(@nestjs\/[^/']+\/[^']+)'/g,
    )) {
      for (const name of names.split(',')) {
        const symbol = name
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (symbol) used.push(`${path} ${symbol}`);
      }
    }
    // A non-public member of a class NestJS exports is marked where it is read.
    for (const [, path, member] of source.matchAll(/\/\/ nest-internal: (\S+) (\S+)/g)) {
      used.push(`${path} ${member}`);
    }
    // A cast to reach a field is a non-public member too: each must be marked.
    expect(source.match(/ as unknown as \{/g)?.length ?? 0).toBeLessThanOrEqual(
      source.match(/\/\/ nest-internal: /g)?.length ?? 0,
    );
    expect(source).not.toMatch(/import\s+\*\s+as\s+\w+\s+from\s+'@nestjs\/[^/']+\//);
    const listed = INTERNALS.map(({ path, symbol }) => `${path} ${symbol}`);
    // An internal the adapter uses must be checked; a row the adapter no longer uses must go.
    expect(used.filter((internal) => !listed.includes(internal))).toEqual([]);
    expect(listed.filter((internal) => !used.includes(internal))).toEqual([]);
  });
});
